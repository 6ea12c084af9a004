#!/usr/bin/env python3
"""oracle_resize.py GPUFILT [SEED [BACKEND [PART...]]] - --resize, --filter and
--crop through gpufilt on fresh random PAM images of every layout (gray,
gray+alpha, RGB, RGBA; 8 and 16 bits), against independent oracles:

- pillow: --filter F --resize WxH! equals Pillow's Image.resize((W, H), F)
  byte for byte (Debian's Pillow 9.4): 8-bit as modes L, LA, RGB, RGBA
  (Pillow premultiplies LA and RGBA itself, except for nearest); 16-bit
  each channel alone as mode 'I' (int32) resized, clipped to 0..65535. For
  every filter (nearest, box, bilinear, hamming, bicubic, lanczos) on sizes
  1x1 to about 700 (fixed cases to 5000 on a side), primes, 1xN and Nx1,
  ratios near 1, one axis or both, shrinking, enlarging or mixed, large
  factors (1000 -> 7, 4000 -> 1, 7 -> 4999), and the same size (a copy:
  the input itself). The eight layouts of a size go through one gpufilt
  call per filter, by an output template.
  Beside WxH!, each layout also goes through the other forms (W, xH, WxH,
  WxH^, WxH>, WxH<, N%): Pillow's resize to the size convert gives.
- crop: --crop WxH[+X+Y] equals numpy slicing of the region cut to the
  image (offsets may be negative), its size that of
  `convert -crop G +repage`; a region wholly outside exits 64, no output.
- geometry: the output size of --resize G for every form (W, xH, WxH, WxH!,
  WxH^, WxH>, WxH<, N%) equals `convert -size WxH xc:gray -resize G`'s.
- order: --filter holds for the later --resize flags only, up to the next
  --filter; --resize and --crop run in flag order among the other stages.
- backend: --backend cpu and --backend auto give the same bytes, and so do
  1 and 5 OpenMP threads.

PART picks some of pillow, crop, geometry, order, backend (default: all).
Prints the seed (SEED, else GPUFILT_TEST_SEED, else a fresh one) and the
command that replays it; every difference (up to 25 shown) names the part,
layout, size, filter and the first differing sample, and exits 1. BACKEND
(cpu by default) goes to --backend; the runs go on every core. Run it with
Debian's python3 (numpy, Pillow) and /usr/bin/convert."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import threading

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import check_image, oracle_start, read_pnm, write_pam  # noqa: E402

CONVERT = "/usr/bin/convert"
LAYOUTS = [(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]
LAYOUT_NAMES = {1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}
R = Image.Resampling
FILTERS = {"nearest": R.NEAREST, "box": R.BOX, "bilinear": R.BILINEAR,
           "hamming": R.HAMMING, "bicubic": R.BICUBIC, "lanczos": R.LANCZOS}
PRIMES = [p for p in range(2, 1000) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
RANDOM_CASES = 150  # of --resize WxH!, beside the fixed ones
PARTS = ("pillow", "crop", "geometry", "order", "backend")


# ---- the oracles ----

def pillow_resize(a, bits, w, h, flt):
    """a (h0 x w0 x c) resized to w x h by Pillow with filter flt, as int64."""
    f = FILTERS[flt]
    if bits == 8:
        src = np.ascontiguousarray(a.astype(np.uint8))
        im = Image.fromarray(src[:, :, 0] if a.shape[2] == 1 else src)
        assert im.mode == {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[a.shape[2]], im.mode
        out = np.asarray(im.resize((w, h), f)).astype(np.int64)
        return out.reshape(h, w, a.shape[2])
    chans = []
    for c in range(a.shape[2]):
        im = Image.fromarray(np.ascontiguousarray(a[:, :, c].astype(np.int32)), "I")
        assert im.mode == "I"
        chans.append(np.clip(np.asarray(im.resize((w, h), f)).astype(np.int64), 0, 65535))
    return np.stack(chans, axis=2)


def crop_ref(a, w, h, x, y):
    """The region [x, x + w) x [y, y + h) cut to the image; None when empty."""
    ih, iw = a.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, iw), min(y + h, ih)
    if x0 >= x1 or y0 >= y1:
        return None
    return a[y0:y1, x0:x1]


def convert_sizes(items):
    """[(w, h, option, geometry)] -> [(w', h')] by /usr/bin/convert:
    `convert -size WxH xc:gray OPTION GEOMETRY [+repage]` for each, in one
    call; where convert refuses (a percentage that leaves no pixel: 1% of
    7x1000), each alone, None for the refused ones."""
    def call(items):
        args = [CONVERT]
        for w, h, opt, g in items:
            args += ["(", "-size", "%dx%d" % (w, h), "xc:gray", opt, g]
            if opt == "-crop":
                args.append("+repage")
            args.append(")")
        r = subprocess.run(args + ["-format", "%w %h\n", "info:"], capture_output=True,
                           text=True)
        return r.returncode, [tuple(map(int, ln.split())) for ln in r.stdout.split("\n") if ln], \
            r.stderr.strip()

    rc, sizes, err = call(items)
    if rc == 0 and len(sizes) == len(items):
        return sizes
    if len(items) == 1:
        if "negative or zero image size" in err:
            return [None]
        raise RuntimeError("convert %s: exit %d: %s" % (" ".join(map(str, items[0])), rc, err))
    return [convert_sizes([it])[0] for it in items]


def est_size(w, h, g):
    """An upper bound of the size of --resize G on a W x H image."""
    g = re.split(r"[+-]", g.replace(" ", ""))[0]  # an offset changes nothing
    if "@" in g:  # A@: about A pixels
        s = (float(g.partition("@")[0].rstrip("x^<>!")) / (w * h)) ** 0.5
        return w * max(s, 1.0) + 1, h * max(s, 1.0) + 1
    if ":" in g:  # W:H: never larger
        return w + 1, h + 1
    if "%" in g:
        s = max(float(v) for v in re.findall(r"[0-9.]+", g)) / 100
    elif "!" in g and "x" in g.strip("x!^<>"):
        return tuple(float(v) + 1 for v in g.rstrip("!^<>").split("x"))
    else:
        gw, _, gh = g.rstrip("!^<>").partition("x")
        gw, gh = float(gw or 0), float(gh or 0)
        s = max(gw / w, gw / h, gh / h, gh / w, 1.0)
    return w * s + 1, h * s + 1


def pam_size(path):
    """(w, h) from a PAM/PNM header, without reading the samples."""
    d = open(path, "rb").read(256)
    if d[:2] == b"P7":
        f = dict(ln.split(b" ", 1) for ln in d.split(b"ENDHDR")[0].split(b"\n")[1:] if b" " in ln)
        return int(f[b"WIDTH"]), int(f[b"HEIGHT"])
    return tuple(map(int, d.split(b"\n")[1].split()))


# ---- random images ----

def random_image(rng, w, h, ch, bits):
    """Noise of one of a few kinds: uniform, extremes only (the largest
    overshoot of the sharp filters: clipping), a smooth ramp with noise, a few
    values; alpha uniform, 0/max with some values between, or opaque."""
    mx = (1 << bits) - 1
    kind = int(rng.integers(0, 4))
    if kind == 0:
        a = rng.integers(0, mx + 1, size=(h, w, ch))
    elif kind == 1:
        a = rng.choice(np.array([0, mx]), size=(h, w, ch))
    elif kind == 2:
        yy, xx = np.mgrid[0:h, 0:w]
        ramp = (xx * 0.7 / max(w, 1) + yy * 0.3 / max(h, 1)) * mx
        a = np.clip(ramp[:, :, None] + rng.normal(0, mx / 16, size=(h, w, ch)), 0, mx)
        a = a.astype(np.int64)
    else:
        a = rng.choice(rng.integers(0, mx + 1, size=3), size=(h, w, ch))
    if ch in (2, 4):
        ak = int(rng.integers(0, 3))
        if ak == 1:
            a[:, :, -1] = rng.choice(np.array([0, mx, mx, int(rng.integers(1, mx))]), size=(h, w))
        elif ak == 2:
            a[:, :, -1] = mx
    return a.astype(np.uint16 if bits == 16 else np.uint8)


def dim(rng, lo=1, hi=700):
    """A size: a prime, else log-uniform in lo..hi."""
    ps = [p for p in PRIMES if lo <= p <= hi]
    if ps and rng.integers(0, 2):
        return int(rng.choice(ps))
    return int(np.clip(round(np.exp(rng.uniform(np.log(lo), np.log(hi + 1)))), lo, hi))


def resize_cases(rng):
    """(src w, src h, dst w, dst h): the fixed awkward ones, then random ones
    of every kind."""
    cases = [
        (1, 1, 1, 1), (1, 1, 7, 5), (7, 5, 1, 1), (2, 2, 3, 3), (3, 3, 2, 2),
        (1, 173, 1, 50), (1, 97, 3, 211), (211, 1, 67, 1), (13, 1, 401, 2),
        (100, 100, 99, 101), (100, 100, 101, 99), (101, 100, 100, 100),
        (100, 100, 100, 101), (100, 99, 100, 100),
        (640, 37, 97, 37), (41, 600, 41, 89), (23, 50, 331, 50), (50, 17, 50, 509),
        (300, 20, 31, 257), (997, 701, 7, 5), (1000, 3, 7, 3), (3, 700, 1, 1),
        (3, 2, 613, 409), (37, 23, 37, 23), (256, 128, 128, 64), (64, 48, 192, 144),
        (5, 5, 3, 3), (701, 1, 1, 1),
        # very large factors, long enlargements (nearest's accumulated
        # positions), an image of more than 2^21 pixels
        (4000, 3, 1, 3), (3, 4001, 3, 1), (7, 1, 4999, 1), (1, 997, 1, 3001),
        (1, 1, 700, 700), (2048, 1100, 301, 207),
    ]
    for i in range(RANDOM_CASES):
        t = i % 6
        if t == 0:    # shrink both
            sw, sh = dim(rng, 2), dim(rng, 2)
            cases.append((sw, sh, dim(rng, 1, sw - 1), dim(rng, 1, sh - 1)))
        elif t == 1:  # enlarge both
            sw, sh = dim(rng, 1, 120), dim(rng, 1, 120)
            cases.append((sw, sh, dim(rng, sw + 1, 700), dim(rng, sh + 1, 700)))
        elif t == 2:  # one shrinks, the other grows
            sw, sh = dim(rng, 2, 700), dim(rng, 1, 100)
            c = (sw, sh, dim(rng, 1, sw - 1), dim(rng, sh + 1, 500))
            cases.append(c if rng.integers(0, 2) else (c[1], c[0], c[3], c[2]))
        elif t == 3:  # near 1
            sw, sh = dim(rng, 3), dim(rng, 3)
            cases.append((sw, sh, sw + int(rng.integers(-2, 3)), sh + int(rng.integers(-2, 3))))
        elif t == 4:  # one axis alone
            sw, sh = dim(rng), dim(rng)
            d = dim(rng)
            cases.append((sw, sh, d, sh) if rng.integers(0, 2) else (sw, sh, sw, d))
        else:         # a large shrink factor
            sw, sh = int(rng.integers(500, 1001)), int(rng.integers(1, 400))
            c = (sw, sh, int(rng.integers(1, 10)), dim(rng, 1, sh))
            cases.append(c if rng.integers(0, 2) else (c[1], c[0], c[3], c[2]))
    return cases


# ---- running ----

class Failures:
    def __init__(self):
        self.lock, self.msgs, self.checks = threading.Lock(), [], 0

    def fail(self, msg):
        with self.lock:
            self.msgs.append(msg)

    def count(self, n=1):
        with self.lock:
            self.checks += n


def gpufilt_run(gpufilt, args, backend):
    r = subprocess.run([gpufilt] + args + ["--backend", backend, "-q"], capture_output=True)
    return r.returncode, r.stderr.decode(errors="replace").strip()


def label_of(ch, bits, sw, sh):
    return "%dx%d %s %d-bit" % (sw, sh, LAYOUT_NAMES[ch], bits)


def compare(F, label, got_path, want, bits):
    try:
        got, gbits = read_pnm(got_path)
        if gbits != bits:
            raise AssertionError("%s: %d bits, want %d" % (label, gbits, bits))
        check_image(label, got, want)
    except AssertionError as e:
        F.fail(str(e))
    except (OSError, ValueError, KeyError) as e:
        F.fail("%s: unreadable output %s: %s" % (label, got_path, e))
    F.count()


def part_pillow(ctx):
    gpufilt, backend, rng, tmp, F = ctx
    jobs = []
    for n, (sw, sh, dw, dh) in enumerate(resize_cases(rng)):
        d = os.path.join(tmp, "p%d" % n)
        os.makedirs(d)
        imgs = []
        for ch, bits in LAYOUTS:
            a = random_image(rng, sw, sh, ch, bits)
            path = os.path.join(d, "c%d-b%d.pam" % (ch, bits))
            write_pam(path, a, bits)
            imgs.append((ch, bits, a, path))
        for flt in FILTERS:
            jobs.append((sw, sh, dw, dh, flt, d, imgs))

    def one(job):
        sw, sh, dw, dh, flt, d, imgs = job
        out = os.path.join(d, flt)
        geo = "%dx%d!" % (dw, dh)
        rc, err = gpufilt_run(gpufilt, [p for _, _, _, p in imgs] +
                              ["-o", out + "/{stem}.pam", "--filter", flt, "--resize", geo],
                              backend)
        for ch, bits, a, path in imgs:
            label = "pillow: %s --filter %s --resize %s" % (label_of(ch, bits, sw, sh), flt, geo)
            if rc:
                F.fail("%s: exit %d: %s" % (label, rc, err))
                F.count()
                continue
            want = pillow_resize(a, bits, dw, dh, flt)
            if (sw, sh) == (dw, dh) and not np.array_equal(want, a):
                F.fail("%s: Pillow's resize to the same size is no copy" % label)
            compare(F, label, os.path.join(out, "c%d-b%d.pam" % (ch, bits)), want, bits)
        shutil.rmtree(out, ignore_errors=True)

    run_pool(one, jobs)


def part_crop(ctx):
    gpufilt, backend, rng, tmp, F = ctx
    d = os.path.join(tmp, "crop")
    os.makedirs(d)
    jobs, for_convert = [], []
    for ch, bits in LAYOUTS:
        for k in range(3):
            iw, ih = [(1, 1), (int(rng.integers(1, 8)), int(rng.integers(1, 8))),
                      (dim(rng, 2, 90), dim(rng, 2, 90))][k]
            a = random_image(rng, iw, ih, ch, bits)
            path = os.path.join(d, "c%d-b%d-%d.pam" % (ch, bits, k))
            write_pam(path, a, bits)
            regions = []
            for _ in range(8):  # inside, across an edge, bigger than the image, negative
                w, h = int(rng.integers(1, 2 * iw + 3)), int(rng.integers(1, 2 * ih + 3))
                x, y = int(rng.integers(-w - 1, iw + 2)), int(rng.integers(-h - 1, ih + 2))
                regions.append((w, h, x, y))
            regions += [(iw, ih, 0, 0), (1, 1, iw - 1, ih - 1), (iw, ih, iw, 0), (iw, ih, 0, ih),
                        (iw, ih, -iw, 0), (3, 2, -3, -2), (iw + 5, 1, -2, ih - 1)]
            for w, h, x, y in regions:
                offs = rng.integers(0, 4) != 0 or (x, y) != (0, 0)
                geo = "%dx%d%+d%+d" % (w, h, x, y) if offs else "%dx%d" % (w, h)
                want = crop_ref(a, w, h, x, y)
                if want is not None:
                    for_convert.append(((iw, ih, "-crop", "%dx%d%+d%+d" % (w, h, x, y)),
                                        (want.shape[1], want.shape[0]), geo, iw, ih))
                jobs.append((ch, bits, iw, ih, path, geo, want))

    def one(i):
        ch, bits, iw, ih, path, geo, want = jobs[i]
        out = os.path.join(d, "out-%d.pam" % i)
        label = "crop: %s --crop %s" % (label_of(ch, bits, iw, ih), geo)
        rc, err = gpufilt_run(gpufilt, [path, "-o", out, "--crop", geo], backend)
        if want is None:
            if rc != 64 or not err.startswith("gpufilt:") or os.path.exists(out):
                F.fail("%s (wholly outside): exit %d, want 64; stderr %r; output %s" % (
                    label, rc, err, "written" if os.path.exists(out) else "absent"))
            F.count()
        elif rc:
            F.fail("%s: exit %d: %s" % (label, rc, err))
            F.count()
        else:
            compare(F, label, out, want.astype(np.int64), bits)

    run_pool(one, range(len(jobs)))
    # the sizes by numpy equal ImageMagick's
    got = convert_sizes([c for c, _, _, _, _ in for_convert])
    for (c, want, geo, iw, ih), g in zip(for_convert, got):
        if g != want:
            F.fail("crop: %dx%d --crop %s: numpy gives %dx%d, convert %dx%d (the oracles "
                   "disagree)" % (iw, ih, geo, want[0], want[1], g[0], g[1]))
        F.count()


def part_geometry(ctx):
    gpufilt, backend, rng, tmp, F = ctx
    d = os.path.join(tmp, "geo")
    os.makedirs(d)
    srcs = [(1, 1), (1, 500), (500, 1), (640, 480), (480, 640), (333, 333), (7, 1000),
            (1000, 7), (2, 3), (3, 2), (101, 99), (dim(rng, 1, 800), dim(rng, 1, 800)),
            (dim(rng, 1, 800), dim(rng, 1, 60))] + \
        [(dim(rng, 1, 800), dim(rng, 1, 800)) for _ in range(6)]
    paths = []
    for i, (w, h) in enumerate(srcs):
        p = os.path.join(d, "s%d.pgm" % i)
        with open(p, "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(w * h))
        paths.append(p)
    geos = ["3", "x3", "100", "x100", "64x64", "100x50", "50x100", "1x1", "300x7",
            "7x300", "640x480", "480x640!", "100x100!", "1x1!", "64x64^", "5x300^", "333x333^",
            "100x100>", "640x480>", "1000x1000>", "100x100<", "640x480<", "1000x1000<",
            "50%", "100%", "200%", "1%", "33%", "150%", "640x480^",
            # forms ImageMagick also takes: two percentages, a decimal one, ! with >;
            # an open 'x' (the other side from the aspect), with ^ > < !; an area, a
            # ratio, spaces and an offset
            "50%x200%", "12.5%", "300x200!>", "10x", "200x^", "64x^", "x64^", "100x>",
            "100x<", "100x!", "50%x", "10000@", "500@>", "4:3", "1:2^", "16 x 9 +3+4"]
    for form in ("%d", "x%d", "%dx%d", "%dx%d!", "%dx%d^", "%dx%d>", "%dx%d<", "%d%%") * 5:
        w, h = dim(rng, 1, 500), dim(rng, 1, 500)
        geos.append(form % {"%d": (w,), "x%d": (h,), "%d%%": (int(rng.integers(1, 250)),)}.get(
            form, (w, h)))
    # each geometry on the sources whose result stays below 2^21 pixels and
    # 8000 a side (64x64^ of 1x500 is 64x32000; convert stops at 16384)
    def small(w, h, g):
        ew, eh = est_size(w, h, g)
        return ew * eh <= 1 << 21 and max(ew, eh) <= 8000
    groups = [(g, [i for i, (w, h) in enumerate(srcs) if small(w, h, g)]) for g in geos]

    def one(gi):
        g, idx = groups[gi]
        want = dict(zip(idx, convert_sizes([srcs[i] + ("-resize", g) for i in idx])))
        # where convert refuses (a side of 0), gpufilt exits 64 naming --resize
        for i in [i for i in idx if want[i] is None]:
            label = "geometry: %dx%d --resize %s (convert: no pixel left)" % (srcs[i] + (g,))
            o = os.path.join(d, "refused-%d-%d.pgm" % (gi, i))
            rc, err = gpufilt_run(gpufilt, [paths[i], "-o", o, "--resize", g], backend)
            if rc != 64 or "--resize" not in err or os.path.exists(o):
                F.fail("%s: exit %d, want 64; stderr %r; output %s" % (
                    label, rc, err, "written" if os.path.exists(o) else "absent"))
            F.count()
        idx = [i for i in idx if want[i] is not None]
        out = os.path.join(d, "g%d" % gi)
        rc, err = gpufilt_run(gpufilt, [paths[i] for i in idx] +
                              ["-o", out + "/{stem}.pgm", "--filter", "box", "--resize", g],
                              backend)
        for i in idx:
            (w, h), p, ws = srcs[i], paths[i], want[i]
            label = "geometry: %dx%d --resize %s" % (w, h, g)
            F.count()
            if rc:
                F.fail("%s: exit %d: %s" % (label, rc, err))
                continue
            o = os.path.join(out, os.path.basename(p))
            gs = pam_size(o) if os.path.exists(o) else None
            if gs != ws:
                F.fail("%s: %s, convert gives %dx%d" % (
                    label, "%dx%d" % gs if gs else "no output", ws[0], ws[1]))
        shutil.rmtree(out, ignore_errors=True)

    run_pool(one, range(len(groups)))


def part_order(ctx):
    """--filter holds for the later --resize flags until the next --filter;
    resizes and crops are stages in flag order."""
    gpufilt, backend, rng, tmp, F = ctx
    d = os.path.join(tmp, "order")
    os.makedirs(d)
    jobs = []
    for ch, bits in LAYOUTS:
        sw, sh = dim(rng, 20, 150), dim(rng, 20, 150)
        a = random_image(rng, sw, sh, ch, bits)
        path = os.path.join(d, "c%d-b%d.pam" % (ch, bits))
        write_pam(path, a, bits)
        A = (int(rng.integers(5, 200)), int(rng.integers(5, 200)))
        B = (int(rng.integers(5, 200)), int(rng.integers(5, 200)))
        C = (int(rng.integers(5, 200)), int(rng.integers(5, 200)))

        def pr(x, size, flt, bits=bits):
            return pillow_resize(x, bits, size[0], size[1], flt)

        def g(s):
            return "%dx%d!" % s
        cw, ch_, cx, cy = 11, 9, 3, 2
        chains = [
            # the default is lanczos; a --filter after the --resize does not reach back
            (["--resize", g(A), "--filter", "nearest", "--resize", g(B)],
             pr(pr(a, A, "lanczos"), B, "nearest")),
            (["--filter", "box", "--resize", g(A), "--filter", "nearest", "--resize", g(B),
              "--resize", g(C)], pr(pr(pr(a, A, "box"), B, "nearest"), C, "nearest")),
            (["--filter", "bicubic", "--filter", "hamming", "--resize", g(A)],
             pr(a, A, "hamming")),
            (["--resize", g(A), "--flop", "--filter", "bilinear", "--resize", g(B)],
             pr(pr(a, A, "lanczos")[:, ::-1], B, "bilinear")),
            (["--crop", "%dx%d+%d+%d" % (cw, ch_, cx, cy), "--filter", "bicubic", "--resize",
              g(A)], pr(a[cy:cy + ch_, cx:cx + cw], A, "bicubic")),
            (["--filter", "box", "--resize", g(A), "--crop", "%dx%d+%d+%d" % (cw, ch_, cx, cy)],
             pr(a, A, "box")[cy:cy + ch_, cx:cx + cw]),
            (["--resize", g(A), "--transpose", "--resize", g(B)],
             pr(pr(a, A, "lanczos").transpose(1, 0, 2), B, "lanczos")),
        ]
        # the other forms: Pillow's resize to the size convert gives
        for form in (["%d", "x%d", "%dx%d", "%dx%d^", "%dx%d>", "%dx%d<", "%d%%"][
                int(rng.integers(0, 7))], "%d%%"):
            w, h = dim(rng, 10, 300), dim(rng, 10, 300)
            geo = form % {"%d": (w,), "x%d": (h,), "%d%%": (int(rng.integers(20, 250)),)}.get(
                form, (w, h))
            size = convert_sizes([(sw, sh, "-resize", geo)])[0]
            flt = list(FILTERS)[int(rng.integers(0, len(FILTERS)))]
            chains.append((["--filter", flt, "--resize", geo], pr(a, size, flt)))
        for args, want in chains:
            jobs.append(("order: %s %s" % (label_of(ch, bits, sw, sh), " ".join(args)),
                         path, args, want, bits))

    def one(i):
        label, path, args, want, bits = jobs[i]
        out = os.path.join(d, "out-%d.pam" % i)
        rc, err = gpufilt_run(gpufilt, [path, "-o", out] + args, backend)
        if rc:
            F.fail("%s: exit %d: %s" % (label, rc, err))
            F.count()
        else:
            compare(F, label, out, want, bits)

    run_pool(one, range(len(jobs)))


def part_backend(ctx):
    """--backend cpu and --backend auto: the same bytes, PAM and PNG."""
    gpufilt, backend, rng, tmp, F = ctx
    d = os.path.join(tmp, "backend")
    os.makedirs(d)
    inputs = []
    for ch, bits in LAYOUTS:
        a = random_image(rng, dim(rng, 1, 900), dim(rng, 1, 900), ch, bits)
        p = os.path.join(d, "c%d-b%d.pam" % (ch, bits))
        write_pam(p, a, bits)
        inputs.append(p)
    jobs = [(flt, "%dx%d!" % (dim(rng, 1, 400), dim(rng, 1, 400)), ext)
            for flt in FILTERS for ext in ("pam", "png")]
    # (label, --backend, environment): the threads of a stage change nothing either
    runs = [("--backend cpu", "cpu", {}), ("--backend auto", "auto", {}),
            ("--backend cpu, 1 OpenMP thread, --jobs 1", "cpu", {"OMP_NUM_THREADS": "1"}),
            ("--backend cpu, 5 OpenMP threads", "cpu", {"OMP_NUM_THREADS": "5"})]

    def one(i):
        flt, geo, ext = jobs[i]
        outs = []
        for k, (name, be, env) in enumerate(runs):
            o = os.path.join(d, "%d-%d" % (k, i))
            r = subprocess.run([gpufilt] + inputs + ["-o", o + "/{stem}." + ext, "--filter", flt,
                                                     "--resize", geo, "--backend", be, "-q"] +
                               (["--jobs", "1"] if "--jobs 1" in name else []),
                               capture_output=True, env=dict(os.environ, **env))
            if r.returncode:
                F.fail("backend: %s --filter %s --resize %s: exit %d: %s" % (
                    name, flt, geo, r.returncode, r.stderr.decode(errors="replace").strip()))
            outs.append(o)
        for p in inputs:
            stem = os.path.splitext(os.path.basename(p))[0] + "." + ext
            fa = os.path.join(outs[0], stem)
            for o, (name, _, _) in list(zip(outs, runs))[1:]:
                fb = os.path.join(o, stem)
                F.count()
                if not (os.path.exists(fa) and os.path.exists(fb)):
                    F.fail("backend: %s --filter %s --resize %s -o .%s: no output" % (
                        os.path.basename(p), flt, geo, ext))
                elif open(fa, "rb").read() != open(fb, "rb").read():
                    F.fail("backend: %s --filter %s --resize %s -o .%s: %s differs from "
                           "--backend cpu" % (os.path.basename(p), flt, geo, ext, name))

    run_pool(one, range(len(jobs)))


def run_pool(one, items):
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for f in [pool.submit(one, x) for x in items]:
            f.result()


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_resize.py")
    parts = sys.argv[4:] or list(PARTS)
    for p in parts:
        if p not in PARTS:
            sys.exit("oracle_resize.py: unknown part %r (%s)" % (p, ", ".join(PARTS)))
    F = Failures()
    try:
        for p in PARTS:  # a fixed order: the same seed draws the same images
            if p in parts:
                globals()["part_" + p]((gpufilt, backend, np.random.default_rng([seed, PARTS.index(p)]),
                                        tmp, F))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if F.msgs:
        for m in F.msgs[:25]:
            print("oracle_resize.py: FAILED: %s" % m)
        print("oracle_resize.py: %d of %d checks failed (seed %d); replay with: "
              "oracle_resize.py GPUFILT %d %s %s" % (len(F.msgs), F.checks, seed, seed, backend,
                                                     " ".join(parts)))
        sys.exit(1)
    print("oracle_resize.py: %d checks passed (%s)" % (F.checks, ", ".join(parts)))


if __name__ == "__main__":
    main()
