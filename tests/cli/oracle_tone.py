#!/usr/bin/env python3
"""oracle_tone.py GPUFILT [SEED [BACKEND [PART...]]] - the tone stages
through gpufilt, on every layout (gray, gray+alpha, RGB, RGBA; 8 and 16
bits), against independent oracles:

- equalize: --equalize equals cv2.equalizeHist on each colour channel of an
  8-bit image, alpha kept; at 16 bits (and at 8 beside OpenCV), numpy by
  the rule: scale = float32(MAX) / float32(N - h[i0]), lut[i] =
  rint(float32(s) * scale) for the running count s past the first value i0,
  a one-valued channel kept.
- autocontrast: --autocontrast [LOW[,HIGH]] equals Pillow's
  ImageOps.autocontrast(image, cutoff=(LOW, HIGH)) on 8-bit gray (mode L)
  and RGB (its colour channels, for gray+alpha and RGBA, alpha kept); at 16
  bits a line-for-line port of Pillow's loops to 65536 bins.
- level, gamma, negate: numpy indexing a table made in Python floats:
  floor(MAX * pow(f, 1 / GAMMA) + 0.5) with f = clamp((v - B) / (W - B), 0,
  1) (B and W from percentages as p / 100 * MAX), f = v / MAX for --gamma;
  MAX - v for --negate.
- chains: --equalize --mean 3 (then the box mean by its definition),
  --resize 50% --autocontrast 2 (Pillow's lanczos resize first, or each
  channel as mode I at 16 bits), --autocontrast 1,3 --gamma 2.2 --negate.

The images: random ones of sizes 1x1, 2x2, 1xN, Nx1 and primes, with each
channel's samples drawn from a random sub-range (so that the stretches and
equalisations have work to do); one-valued and two-valued images; and the
photos of samples/ as they are and turned into the other layouts (a random
alpha added, gray taken, 16 bits as v * 256 plus random low bits).

PART picks some of equalize, autocontrast, level, gamma, negate, chains
(default: all). Prints the seed (SEED, else GPUFILT_TEST_SEED, else a fresh
one) and the command that replays it; every difference (up to 25 shown)
names the part, image, layout and options and the first differing sample,
and exits 1. BACKEND (cpu by default) goes to --backend; the runs go on
every core. Run it with Debian's python3 (numpy, OpenCV, Pillow)."""
import glob
import math
import os
import shutil
import subprocess
import sys

import cv2
import numpy as np
from PIL import Image, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import box_mean, check_image, oracle_start, read_pnm, run_all, write_pam  # noqa: E402
from oracle_resize import Failures, pillow_resize  # noqa: E402

LAYOUTS = [(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]
LAYOUT_NAMES = {1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}
PARTS = ("equalize", "autocontrast", "level", "gamma", "negate", "chains")
SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
SIZES = [(1, 1), (2, 2), (1, 7), (7, 1), (3, 5), (13, 7), (31, 37), (97, 61), (251, 3),
         (2, 509), (127, 131), (509, 241)]


def colours(ch):
    """The colour channels of a layout (alpha, where there is one, is last)."""
    return 1 if ch == 2 else 3 if ch == 4 else ch


# ---- the oracles: each maps every colour channel, alpha as it is ----

def per_channel(a, fn):
    out = a.copy()
    for c in range(colours(a.shape[2])):
        out[:, :, c] = fn(a[:, :, c])
    return out


def equalize_numpy(x, bits):
    """One channel (2-D) by the rule, in float32 as OpenCV computes it."""
    mx = (1 << bits) - 1
    h = np.bincount(x.ravel(), minlength=mx + 1)
    i0 = int(np.flatnonzero(h)[0])
    if h[i0] == x.size:
        return x.copy()
    scale = np.float32(mx) / np.float32(x.size - h[i0])
    s = (np.cumsum(h) - h[i0]).astype(np.float32)  # exact below 2^24 pixels
    lut = np.clip(np.rint(s * scale), 0, mx).astype(np.int64)
    lut[:i0 + 1] = 0
    return lut[x]


def equalize_ref(a, bits):
    want = per_channel(a, lambda x: equalize_numpy(x, bits))
    if bits == 8:  # OpenCV itself, which the numpy rule must agree with
        cv = per_channel(a, lambda x: cv2.equalizeHist(np.ascontiguousarray(x.astype(np.uint8))))
        check_image("numpy's rule against cv2.equalizeHist", want, cv.astype(np.int64))
        want = cv.astype(np.int64)
    return want


def autocontrast_port(x, low, high, mx):
    """Pillow's ImageOps.autocontrast loops (9.4) on one channel of mx + 1
    bins, line for line."""
    h = [int(v) for v in np.bincount(x.ravel(), minlength=mx + 1)]
    if low or high:
        n = sum(h)
        cut = n * low // 100
        for lo in range(mx + 1):
            if cut > h[lo]:
                cut = cut - h[lo]
                h[lo] = 0
            else:
                h[lo] -= cut
                cut = 0
            if cut <= 0:
                break
        cut = n * high // 100
        for hi in range(mx, -1, -1):
            if cut > h[hi]:
                cut = cut - h[hi]
                h[hi] = 0
            else:
                h[hi] -= cut
                cut = 0
            if cut <= 0:
                break
    for lo in range(mx + 1):
        if h[lo]:
            break
    for hi in range(mx, -1, -1):
        if h[hi]:
            break
    if hi <= lo:
        return x.copy()
    scale = float(mx) / (hi - lo)
    offset = -lo * scale
    lut = np.array([min(max(int(ix * scale + offset), 0), mx) for ix in range(mx + 1)])
    return lut[x]


def autocontrast_ref(a, bits, low, high):
    ch = a.shape[2]
    if bits == 16:
        return per_channel(a, lambda x: autocontrast_port(x, low, high, 65535))
    col = a[:, :, :colours(ch)].astype(np.uint8)
    im = Image.fromarray(np.ascontiguousarray(col[:, :, 0] if colours(ch) == 1 else col))
    assert im.mode in ("L", "RGB")
    got = np.asarray(ImageOps.autocontrast(im, cutoff=(low, high))).astype(np.int64)
    out = a.copy()
    out[:, :, :colours(ch)] = got.reshape(a.shape[0], a.shape[1], colours(ch))
    port = per_channel(a, lambda x: autocontrast_port(x, low, high, 255))
    check_image("the Pillow port against Pillow", port, out)
    return out


def level_table(black, white, gamma, bits):
    mx = (1 << bits) - 1
    inv = 1.0 / gamma
    t = []
    for v in range(mx + 1):
        f = min(max((v - black) / (white - black), 0.0), 1.0)
        t.append(math.floor(mx * math.pow(f, inv) + 0.5))
    return np.array(t, dtype=np.int64)


def point(text, bits):
    """BLACK or WHITE as --level reads it: a sample, or p% as p / 100 * MAX."""
    mx = (1 << bits) - 1
    return float(text[:-1]) / 100.0 * mx if text.endswith("%") else float(text)


def level_ref(a, bits, arg):
    parts = arg.split(",")
    g = float(parts[2]) if len(parts) > 2 else 1.0
    t = level_table(point(parts[0], bits), point(parts[1], bits), g, bits)
    return per_channel(a, lambda x: t[x])


def gamma_ref(a, bits, g):
    mx = (1 << bits) - 1
    t = np.array([math.floor(mx * math.pow(v / mx, 1.0 / g) + 0.5) for v in range(mx + 1)],
                 dtype=np.int64)
    return per_channel(a, lambda x: t[x])


def negate_ref(a, bits):
    return per_channel(a, lambda x: (1 << bits) - 1 - x)


# ---- the images ----

def random_image(rng, w, h, ch, bits):
    """Each channel's samples from a random sub-range of the depth."""
    mx = (1 << bits) - 1
    a = np.empty((h, w, ch), dtype=np.int64)
    for c in range(ch):
        lo = int(rng.integers(0, mx + 1))
        hi = int(rng.integers(lo, mx + 1))
        a[:, :, c] = rng.integers(lo, hi + 1, size=(h, w))
    return a


def to_layout(rng, a, bits, ch, to_bits):
    """A photo (8-bit, gray or RGB) in layout (ch, to_bits)."""
    g = a[:, :, :1] if a.shape[2] == 1 else \
        ((77 * a[:, :, 0] + 150 * a[:, :, 1] + 29 * a[:, :, 2]) >> 8)[:, :, None]
    col = a if a.shape[2] == 3 else np.repeat(a, 3, axis=2)
    base = g if colours(ch) == 1 else col
    if to_bits == 16:
        base = base * 256 + rng.integers(0, 256, size=base.shape)
    if ch in (2, 4):
        base = np.concatenate([base, rng.integers(0, 1 << to_bits, size=base.shape[:2] + (1,))],
                              axis=2)
    return base


def images(rng, tmp, n_random):
    """(name, array, bits, path) of the test images, written as PAM."""
    out = []

    def add(name, a, bits):
        path = os.path.join(tmp, "in%d.pam" % len(out))
        write_pam(path, a, bits)
        out.append((name, a, bits, path))

    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        for w, h in SIZES[:n_random]:
            add("random %dx%d" % (w, h), random_image(rng, w, h, ch, bits), bits)
        v = int(rng.integers(0, mx + 1))
        add("one-valued %d" % v, np.full((9, 11, ch), v, dtype=np.int64), bits)
        two = np.where(rng.integers(0, 2, size=(13, 17, ch)) == 1, int(rng.integers(0, mx + 1)),
                       int(rng.integers(0, mx + 1)))
        add("two-valued", two, bits)
    photos = sorted(glob.glob(os.path.join(SAMPLES, "*.png")) +
                    glob.glob(os.path.join(SAMPLES, "*.jpg")))
    for i, p in enumerate(photos):
        im = Image.open(p)
        im = im.convert("L" if im.mode in ("L", "1", "P", "LA") else "RGB")
        a = np.asarray(im).astype(np.int64)
        a = a.reshape(a.shape[0], a.shape[1], -1)
        ch, bits = LAYOUTS[i % len(LAYOUTS)]
        add("%s as %s %d-bit" % (os.path.basename(p), LAYOUT_NAMES[ch], bits),
            to_layout(rng, a, 8, ch, bits), bits)
    return out


# ---- running ----

def check_run(F, gpufilt, backend, label, path, args, want, bits, out):
    r = subprocess.run([gpufilt, path, "-o", out] + args + ["--backend", backend, "-q"],
                       capture_output=True)
    F.count()
    if r.returncode:
        F.fail("%s %s: exit %d: %s" % (label, " ".join(args), r.returncode,
                                       r.stderr.decode(errors="replace").strip()))
        return
    try:
        got, gbits = read_pnm(out)
        if gbits != bits:
            raise AssertionError("%d bits, want %d" % (gbits, bits))
        check_image("%s %s" % (label, " ".join(args)), got, want)
    except AssertionError as e:
        F.fail(str(e))


def run_cases(ctx, cases):
    """cases: (label, input path, args, want, bits) each, on every core."""
    gpufilt, backend, tmp, F = ctx

    def one(i):
        label, path, args, want, bits = cases[i]
        check_run(F, gpufilt, backend, label, path, args, want, bits,
                  os.path.join(tmp, "out%d.pam" % i))

    run_all(one, len(cases))


def label_of(name, a, bits):
    return "%s %s %d-bit" % (name, LAYOUT_NAMES[a.shape[2]], bits)


def part_equalize(ctx, imgs, rng):
    run_cases(ctx, [(label_of(n, a, b), p, ["--equalize"], equalize_ref(a, b), b)
                    for n, a, b, p in imgs])


def part_autocontrast(ctx, imgs, rng):
    cuts = [None, (2, 2), (0, 5), (10, 0.5), (0.1, 0.1), (49, 49), (33, 1)]
    cases = []
    for k, (n, a, b, p) in enumerate(imgs):
        for cut in (cuts[k % len(cuts)], (round(float(rng.uniform(0, 49)), 2),) * 2):
            args = ["--autocontrast"] + ([] if cut is None else ["%g,%g" % cut])
            low, high = (0, 0) if cut is None else cut
            cases.append((label_of(n, a, b), p, args, autocontrast_ref(a, b, low, high), b))
    run_cases(ctx, cases)


def part_level(ctx, imgs, rng):
    fixed = ["10,240", "0,255,2.2", "30,200,0.45", "10%,90%,1.5", "0%,100%,0.01", "0,100%,100",
             "127,128", "0.5%,99.5%", "20,50%,3"]
    cases = []
    for k, (n, a, b, p) in enumerate(imgs):
        mx = (1 << b) - 1
        bl = int(rng.integers(0, mx))
        rand = "%d,%d,%g" % (bl, int(rng.integers(bl + 1, mx + 1)),
                             round(float(rng.uniform(0.05, 8)), 3))
        for arg in (fixed[k % len(fixed)], rand):
            cases.append((label_of(n, a, b), p, ["--level", arg], level_ref(a, b, arg), b))
    run_cases(ctx, cases)


def part_gamma(ctx, imgs, rng):
    fixed = [2.2, 0.45, 1, 0.01, 100, 1.8]
    cases = []
    for k, (n, a, b, p) in enumerate(imgs):
        for g in (fixed[k % len(fixed)], round(float(rng.uniform(0.1, 10)), 3)):
            cases.append((label_of(n, a, b), p, ["--gamma", "%g" % g], gamma_ref(a, b, g), b))
    run_cases(ctx, cases)


def part_negate(ctx, imgs, rng):
    run_cases(ctx, [(label_of(n, a, b), p, ["--negate"], negate_ref(a, b), b)
                    for n, a, b, p in imgs])


def part_chains(ctx, imgs, rng):
    gpufilt, backend, tmp, F = ctx
    cases = []
    for k, (ch, bits) in enumerate(LAYOUTS):
        w, h = 2 * int(rng.integers(3, 120)), 2 * int(rng.integers(3, 120))
        a = random_image(rng, w, h, ch, bits)
        path = os.path.join(tmp, "chain%d.pam" % k)
        write_pam(path, a, bits)
        label = label_of("random %dx%d" % (w, h), a, bits)
        cases.append((label, path, ["--equalize", "--mean", "3"],
                      box_mean(equalize_ref(a, bits), 3, "replicate", 0), bits))
        cases.append((label, path, ["--resize", "50%", "--autocontrast", "2"],
                      autocontrast_ref(pillow_resize(a, bits, w // 2, h // 2, "lanczos"), bits,
                                       2, 2), bits))
        cases.append((label, path, ["--autocontrast", "1,3", "--gamma", "2.2", "--negate"],
                      negate_ref(gamma_ref(autocontrast_ref(a, bits, 1, 3), bits, 2.2), bits),
                      bits))
    run_cases(ctx, cases)


def oracle_main(name, parts_known, part_fns, n_random):
    """The command line of an oracle made of parts over images() (n_random
    random sizes each layout): GPUFILT [SEED [BACKEND [PART...]]], each part
    part_fns["part_" + PART]((gpufilt, backend, tmp, F), images, rng) in the
    order of parts_known, the failures (25 shown) and the replay command."""
    gpufilt, seed, backend, _, tmp = oracle_start(name)
    parts = sys.argv[4:] or list(parts_known)
    for p in parts:
        if p not in parts_known:
            sys.exit("%s: unknown part %r (%s)" % (name, p, ", ".join(parts_known)))
    F = Failures()
    try:
        imgs = images(np.random.default_rng([seed, 99]), tmp, n_random)
        for p in parts_known:  # a fixed order: the same seed draws the same images
            if p in parts:
                part_fns["part_" + p]((gpufilt, backend, tmp, F), imgs,
                                      np.random.default_rng([seed, parts_known.index(p)]))
    except AssertionError as e:  # an oracle that disagrees with its library
        F.fail("oracle: %s" % e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if F.msgs:
        for m in F.msgs[:25]:
            print("%s: FAILED: %s" % (name, m))
        print("%s: %d of %d checks failed (seed %d); replay with: %s GPUFILT %d %s %s" % (
            name, len(F.msgs), F.checks, seed, name, seed, backend, " ".join(parts)))
        sys.exit(1)
    print("%s: %d checks passed (%s)" % (name, F.checks, ", ".join(parts)))


def main():
    oracle_main("oracle_tone.py", PARTS, globals(), len(SIZES))


if __name__ == "__main__":
    main()
