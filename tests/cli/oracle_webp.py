#!/usr/bin/env python3
"""oracle_webp.py GPUFILT [SEED [BACKEND]] - gpufilt's WebP reading and
writing against libwebp's own tools and Pillow, on fresh random images
(noise, and smooth planes with noise) of awkward sizes (1x1, 7x3, 3x7,
17x1, 1x17, 33x31, 257x131 and a random one):
- reading: files made by cwebp (lossy at random qualities and methods,
  sharp YUV, no filter, lossless at random efforts, near-lossless, lossy
  and lossless alpha, -exact, -noalpha; from gray, RGB and RGBA PNGs) decode
  through gpufilt to PAM and to PNG with exactly the samples `dwebp -pam`
  gives (RGB when the file has no alpha, RGBA when it has);
- animations made by Pillow (2 to 4 frames, lossy or lossless, RGB or RGBA,
  the first frame transparent at its edges so that it is stored smaller
  than the canvas) give Pillow's first frame exactly, and the note
  "gpufilt: NAME: animated WebP: the first of N frames is read" on stderr;
- writing: every 8-bit layout (gray, gray+alpha, RGB, RGBA; a third of the
  alpha 0) with --lossless decodes by dwebp to every sample of the input
  (gray as R = G = B, the colour under zero alpha too); lossy at a random
  --quality decodes by dwebp to the samples of cwebp -q QUALITY's file of the
  same image (libwebp's defaults are cwebp's), alpha exact, the same bytes
  on a second run, and gpufilt reads its own file as dwebp does.
Prints its seed (SEED, else GPUFILT_TEST_SEED, else a fresh one); the first
difference names the file, how it was made and the sample, and exits 1.
BACKEND (cpu by default) is passed as --backend. Run by tests/cli/webp.bats
with Debian's python3 (numpy, Pillow) and the webp package's cwebp and
dwebp."""
import os
import shutil
import subprocess
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import oracle_start, read_pnm, run_all, write_pam  # noqa: E402

SIZES = [(1, 1), (7, 3), (3, 7), (17, 1), (1, 17), (33, 31), (257, 131)]


class Failure(Exception):
    pass


def sh(args):
    r = subprocess.run(args, capture_output=True)
    if r.returncode:
        raise Failure("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()))
    return r


def image(rng, w, h, c, smooth):
    """h x w x c random samples: noise, or a random plane per channel plus
    noise of +-2; alpha (c 2 or 4) 0 in about a third of the pixels, and
    below 255 in one at least: libwebp writes no alpha for an opaque image
    (1x1 noise was opaque one time in 384)."""
    if smooth:
        y, x = np.mgrid[0:h, 0:w]
        a = np.stack([rng.integers(40, 210) + rng.uniform(-1, 1) * 60 * x / w +
                      rng.uniform(-1, 1) * 60 * y / h for _ in range(c)], axis=2)
        a = np.clip(np.rint(a) + rng.integers(-2, 3, size=(h, w, c)), 0, 255)
    else:
        a = rng.integers(0, 256, size=(h, w, c))
    if c in (2, 4):
        a[..., -1] = np.where(rng.integers(0, 3, size=(h, w)) == 0, 0, a[..., -1])
        y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
        a[y, x, -1] = min(a[y, x, -1], int(rng.integers(0, 255)))
    return a.astype(np.int64)


def pil_save_png(path, a):
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[a.shape[2]]
    data = a[..., 0] if a.shape[2] == 1 else a
    Image.fromarray(data.astype(np.uint8), mode).save(path)


def dwebp_pam(path, out):
    sh(["dwebp", "-quiet", "-pam", path, "-o", out])
    a, bits = read_pnm(out)
    assert bits == 8 and a.shape[2] == 4, "dwebp -pam gives RGBA"
    return a


def check_decode(label, got, want):
    """got: gpufilt's h x w x 3 or 4; want: dwebp's RGBA."""
    if got.shape[:2] != want.shape[:2]:
        raise Failure("%s: %s, dwebp %s" % (label, got.shape, want.shape))
    if got.shape[2] == 3:
        if (want[..., 3] != 255).any():
            raise Failure("%s: RGB, but the file has alpha" % label)
        want = want[..., :3]
    bad = np.argwhere(got != want)
    if len(bad):
        y, x, c = bad[0]
        raise Failure("%s: %d samples differ from dwebp's, the first (%d, %d) channel %d: %d, "
                      "not %d" % (label, len(bad), x, y, c, got[y, x, c], want[y, x, c]))


def as_rgba(a):
    """What a becomes in WebP, as dwebp -pam gives it: RGBA, gray as R = G = B,
    alpha 255 where there is none."""
    h, w, c = a.shape
    rgb = np.repeat(a[..., :1], 3, axis=2) if c <= 2 else a[..., :3]
    alpha = a[..., -1:] if c in (2, 4) else np.full((h, w, 1), 255)
    return np.concatenate([rgb, alpha], axis=2)


def cwebp_variants(rng):
    """(name, cwebp options, input channels) for one run."""
    q = str(int(rng.integers(0, 101)))
    m = str(int(rng.integers(0, 7)))
    z = str(int(rng.integers(0, 10)))
    return [
        ("lossy q%s m%s" % (q, m), ["-q", q, "-m", m], 3),
        ("lossy default", [], 3),
        ("lossy sharp-yuv", ["-q", q, "-sharp_yuv"], 3),
        ("lossy no filter, 1 segment", ["-q", q, "-f", "0", "-sns", "0", "-segments", "1"], 3),
        ("lossy from gray", ["-q", q], 1),
        ("lossy + lossless alpha", ["-q", q, "-m", m], 4),
        ("lossy + lossy alpha", ["-q", q, "-alpha_q", "40", "-alpha_filter", "best"], 4),
        ("lossy -noalpha", ["-q", q, "-noalpha"], 4),
        ("lossless z%s" % z, ["-lossless", "-z", z], 3),
        ("lossless alpha -exact", ["-lossless", "-exact"], 4),
        ("lossless gray+alpha", ["-lossless"], 2),
        ("near-lossless 60", ["-near_lossless", "60"], 4),
    ]


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_webp.py")
    sizes = SIZES + [(int(rng.integers(1, 300)), int(rng.integers(1, 200)))]
    jobs = []

    # reading cwebp's files
    for si, (w, h) in enumerate(sizes):
        for vi, (name, opts, c) in enumerate(cwebp_variants(rng)):
            jobs.append(("read", si, vi, w, h, name, opts, c, int(rng.integers(1 << 62))))
    # animations by Pillow
    for k in range(6):
        w, h = sizes[int(rng.integers(3, len(sizes)))]
        w, h = max(w, 4), max(h, 4)
        jobs.append(("anim", k, 0, w, h, "", [], 4 if k % 2 else 3, int(rng.integers(1 << 62))))
    # writing
    for si, (w, h) in enumerate(sizes):
        for c in (1, 2, 3, 4):
            jobs.append(("write", si, c, w, h, "", [], c, int(rng.integers(1 << 62))))

    def one(i):
        kind, si, vi, w, h, name, opts, c, s = jobs[i]
        r = np.random.default_rng(s)
        base = os.path.join(tmp, "%s%d" % (kind, i))
        if kind == "read":
            src = image(r, w, h, c, bool(r.integers(0, 2)))
            pil_save_png(base + ".png", src)
            f = base + ".webp"
            sh(["cwebp", "-quiet"] + opts + [base + ".png", "-o", f])
            want = dwebp_pam(f, base + "_dwebp.pam")
            label = "cwebp %s, %dx%d from %d channels (%s)" % (name, w, h, c, f)
            sh([gpufilt, f, "-o", base + "_got.pam", "-q", "--backend", backend])
            got, bits = read_pnm(base + "_got.pam")
            assert bits == 8
            check_decode(label + " -> PAM", got, want)
            if "noalpha" in name and got.shape[2] != 3:
                raise Failure("%s: -noalpha, yet %d channels" % (label, got.shape[2]))
            if c in (2, 4) and "noalpha" not in name and got.shape[2] != 4:
                raise Failure("%s: alpha lost" % label)
            sh([gpufilt, f, "-o", base + "_got.png", "-q", "--backend", backend])
            png = np.array(Image.open(base + "_got.png")).astype(np.int64)
            check_decode(label + " -> PNG", png.reshape(h, w, -1), want)
        elif kind == "anim":
            n = 2 + si % 3
            frames = [image(r, w, h, 4, bool(r.integers(0, 2))) for _ in range(n)]
            for fr in frames:
                fr[..., 3] = np.maximum(fr[..., 3], 1 if c == 4 else 255)
            # the first frame transparent at its edges: stored as a smaller frame at an offset
            frames[0][:2, :, :] = 0
            frames[0][:, :2, :] = 0
            mode = "RGBA" if c == 4 else "RGB"
            ims = [Image.fromarray(fr.astype(np.uint8), "RGBA") for fr in frames]
            if c == 3:
                ims = [im.convert("RGB") for im in ims]
            f = base + ".webp"
            lossless = bool(si % 2 == 0)
            ims[0].save(f, save_all=True, append_images=ims[1:], duration=50,
                        lossless=lossless, quality=int(r.integers(30, 100)))
            pil = Image.open(f)
            if not getattr(pil, "is_animated", False) or pil.n_frames != n:
                raise Failure("Pillow made no animation of %d frames: %s" % (n, f))
            pil.seek(0)
            want = np.array(pil.convert(pil.mode)).astype(np.int64).reshape(h, w, -1)
            label = "Pillow animation of %d %s frames %dx%d, %s (%s)" % (
                n, mode, w, h, "lossless" if lossless else "lossy", f)
            r2 = subprocess.run([gpufilt, f, "-o", base + "_got.pam", "-q", "--backend", backend],
                                capture_output=True)
            if r2.returncode:
                raise Failure("%s: exit %d: %s" % (label, r2.returncode, r2.stderr.decode()))
            note = "gpufilt: %s: animated WebP: the first of %d frames is read\n" % (f, n)
            if r2.stderr.decode() != note:
                raise Failure("%s: stderr %r, not %r" % (label, r2.stderr.decode(), note))
            got, _ = read_pnm(base + "_got.pam")
            if got.shape != want.shape:
                raise Failure("%s: %s, Pillow %s" % (label, got.shape, want.shape))
            bad = np.argwhere(got != want)
            if len(bad):
                y, x, ch = bad[0]
                raise Failure("%s: %d samples differ from Pillow's first frame, the first "
                              "(%d, %d) channel %d: %d, not %d" % (
                                  label, len(bad), x, y, ch, got[y, x, ch], want[y, x, ch]))
        else:
            src = image(r, w, h, c, False)
            write_pam(base + ".pam", src, 8)
            want = as_rgba(src)
            f = base + "_ll.webp"
            sh([gpufilt, base + ".pam", "--lossless", "-o", f, "-q", "--backend", backend])
            back = dwebp_pam(f, base + "_ll.pam")
            bad = np.argwhere(back != want)
            if len(bad):
                y, x, ch = bad[0]
                raise Failure("--lossless %d channels %dx%d (%s): %d samples differ, the first "
                              "(%d, %d) channel %d: %d, not %d" % (
                                  c, w, h, f, len(bad), x, y, ch, back[y, x, ch], want[y, x, ch]))
            # lossy, on a smooth image
            src = image(r, w, h, c, True)
            write_pam(base + "_s.pam", src, 8)
            want = as_rgba(src)
            q = str(int(r.integers(1, 101)))
            f, f2 = base + "_q.webp", base + "_q2.webp"
            for out in (f, f2):
                sh([gpufilt, base + "_s.pam", "--quality", q, "-o", out, "-q", "--backend",
                    backend])
            label = "--quality %s, %d channels %dx%d (%s)" % (q, c, w, h, f)
            if open(f, "rb").read() != open(f2, "rb").read():
                raise Failure("%s: two runs give different bytes" % label)
            back = dwebp_pam(f, base + "_q.pam")
            if back.shape != want.shape:
                raise Failure("%s: dwebp gives %s" % (label, back.shape))
            if (back[..., 3] != want[..., 3]).any():
                raise Failure("%s: alpha not kept" % label)
            # the samples of cwebp's file at that quality: libwebp's defaults (method 4,
            # alpha lossless, the colour under zero alpha free) are cwebp's
            pil_save_png(base + "_s.png", src)
            sh(["cwebp", "-quiet", "-q", q, base + "_s.png", "-o", base + "_cwebp.webp"])
            cw = dwebp_pam(base + "_cwebp.webp", base + "_cwebp.pam")
            bad = np.argwhere(back != cw)
            if len(bad):
                y, x, ch = bad[0]
                raise Failure("%s: %d samples differ from cwebp -q %s's, the first (%d, %d) "
                              "channel %d: %d, not %d" % (label, len(bad), q, x, y, ch,
                                                          back[y, x, ch], cw[y, x, ch]))
            sh([gpufilt, f, "-o", base + "_qgot.pam", "-q", "--backend", backend])
            got, _ = read_pnm(base + "_qgot.pam")
            check_decode(label + ", read back by gpufilt", got, back)

    run_all(one, len(jobs))
    shutil.rmtree(tmp)  # kept when a check fails
    print("%d checks passed" % len(jobs))


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print("FAIL:", e)
        sys.exit(1)
