#!/usr/bin/env python3
"""gauss_accuracy.py GPUFILT [SEED] - how far gpufilt's 8-bit --gaussian and
OpenCV's 8-bit cv2.GaussianBlur are from the true Gaussian: a measurement,
not a test.

For each image (uniform noise, a smooth synthetic image, a photo from
samples/) and each SIGMA of a grid up to 20, with K the 8-bit default
(floor(6 SIGMA + 1.5) | 1, at most 127) given to both explicitly and the
border replicate for both, the truth is the image convolved in float64
(numpy, separable) with the normalised kernel g_i / sum(g), g_i =
exp(-(i - c)^2 / (2 SIGMA^2)), over the same K taps. Printed per SIGMA: the
largest |output - truth| and the share of samples that are not the nearest
integer to the truth (truth within 1e-9 of a .5 counts either way), for
gpufilt (--gaussian SIGMA,K --backend cpu) and OpenCV
(cv2.GaussianBlur(img, (K, K), SIGMA, borderType=BORDER_REPLICATE)); then
the largest error over SIGMA <= 5 and <= 20. Run with /usr/bin/python3
(numpy, cv2); about a minute on 2 cores."""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import cv2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
from layouts import read_pnm, write_pam  # noqa: E402

SIGMAS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0,
          3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0]


def ksize(sigma):
    return min(127, int(math.floor(6.0 * sigma + 1.5)) | 1)


def truth(a, sigma, k):
    """a (h x w x c, float64) convolved with the normalised K-tap Gaussian,
    replicate border, in float64."""
    c = k // 2
    g = np.exp(-((np.arange(k) - c) ** 2) / (2.0 * sigma * sigma))
    g /= g.sum()
    h, w = a.shape[:2]
    p = np.pad(a, ((c, c), (c, c), (0, 0)), mode="edge")
    rows = np.zeros((p.shape[0], w, a.shape[2]))
    for j in range(k):
        rows += g[j] * p[:, j:j + w]
    out = np.zeros(a.shape)
    for i in range(k):
        out += g[i] * rows[i:i + h]
    return out


def errors(got, t):
    """(largest |got - t|, share of samples not the nearest integer to t)."""
    d = np.abs(got - t)
    near_tie = np.abs(np.abs(t - np.floor(t)) - 0.5) < 1e-9
    return d.max(), float(np.mean((d > 0.5) & ~near_tie))


def weights(sigma, k):
    """gpufilt's integer weights (src/stages/gaussian.h) and the true ones."""
    c = k // 2
    g = [math.exp(-float((i - c) * (i - c)) / (2.0 * sigma * sigma)) for i in range(k)]
    s = sum(g)
    w = [int(math.floor(16384 * v / s + 0.5)) for v in g]
    w[c] += 16384 - sum(w)
    return np.array(w, dtype=np.float64) / 16384, np.array(g) / s


def worst_images(sigma, k):
    """The two K x K images that push gpufilt's centre pixel furthest from the
    truth: 255 where its 2-D weight w_i w_j is above the true g_i g_j (or
    below), 0 elsewhere; and the bound 0.5 + 127.5 sum |w_i w_j - g_i g_j|
    that no 8-bit image can pass."""
    w, g = weights(sigma, k)
    d = np.outer(w, w) - np.outer(g, g)
    imgs = [np.where(d > 0, 255, 0)[:, :, None], np.where(d < 0, 255, 0)[:, :, None]]
    return imgs, 0.5 + 127.5 * np.abs(d).sum()


def images(rng):
    noise = rng.integers(0, 256, size=(480, 640, 1))
    y, x = np.mgrid[0:480, 0:640].astype(np.float64)
    smooth = 127.5 + 60 * np.sin(x / 37.0 + 0.3) * np.cos(y / 23.0) + 50 * np.sin(
        (x + 2 * y) / 91.0) + 0.05 * (x - 320)
    smooth = np.clip(np.round(smooth), 0, 255).astype(np.int64)[:, :, None]
    out = [("noise", noise), ("smooth", smooth)]
    photo = cv2.imread(os.path.join(ROOT, "samples", "astronaut.png"), cv2.IMREAD_UNCHANGED)
    if photo is not None:
        photo = photo.reshape(photo.shape[0], photo.shape[1], -1)[:, :, :3]
        out.append(("photo", photo.astype(np.int64)))
    return out


def run_gpufilt(gpufilt, tmp, a, sigma, k):
    inp, outp = os.path.join(tmp, "in.pam"), os.path.join(tmp, "out.pam")
    write_pam(inp, a, 8)
    subprocess.run([gpufilt, inp, "-o", outp, "--gaussian", "%r,%d" % (sigma, k),
                    "--backend", "cpu", "-q"], check=True)
    got, _ = read_pnm(outp)
    os.remove(inp)
    os.remove(outp)
    return got.astype(np.float64)


def main():
    gpufilt = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "gpufilt")
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = np.random.default_rng(seed)
    cv2.setNumThreads(2)
    tmp = tempfile.mkdtemp(prefix="gauss_accuracy.")
    imgs = images(rng)
    print("gauss_accuracy.py seed %d: 8-bit; K = floor(6 SIGMA + 1.5) | 1 (<= 127) for both; "
          "replicate" % seed)
    print("images: noise 640x480 (uniform), smooth 640x480 (sines), photo (samples/"
          "astronaut.png, RGB 512x512),")
    print("worst: the K x K images that gpufilt's weights err most on, with the bound no "
          "image passes")
    print("cells: largest |output - float64 Gaussian of the same K|; OpenCV's also the share "
          "of samples not the nearest integer\n")
    head = "| SIGMA | K |" + "".join(" %s gpufilt | %s OpenCV |" % (n, n) for n, _ in imgs) + \
        " worst gpufilt (bound) |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    summary = {}

    def note(key, sigma, v):
        for limit in (5, 20):
            if sigma <= limit:
                summary[key, limit] = max(summary.get((key, limit), 0.0), v)

    for sigma in SIGMAS:
        k = ksize(sigma)
        row = "| %g | %d |" % (sigma, k)
        for name, a in imgs:
            t = truth(a.astype(np.float64), sigma, k)
            ge, gs = errors(run_gpufilt(gpufilt, tmp, a, sigma, k), t)
            src = np.ascontiguousarray(a.astype(np.uint8))
            cv = cv2.GaussianBlur(src, (k, k), sigma, borderType=cv2.BORDER_REPLICATE)
            ce, cs = errors(cv.reshape(a.shape).astype(np.float64), t)
            row += " %.3f | %.3f (%.1f%%) |" % (ge, ce, 100 * cs)
            for key, v in (("%s gpufilt" % name, ge), ("%s gpufilt not nearest" % name, gs),
                           ("%s OpenCV" % name, ce), ("%s OpenCV not nearest" % name, cs)):
                note(key, sigma, v)
        worst, bound = worst_images(sigma, k)
        we = max(errors(run_gpufilt(gpufilt, tmp, a, sigma, k),
                        truth(a.astype(np.float64), sigma, k))[0] for a in worst)
        note("worst gpufilt", sigma, we)
        note("bound gpufilt", sigma, bound)
        print(row + " %.3f (%.3f) |" % (we, bound))
    os.rmdir(tmp)
    print("\nlargest over SIGMA <= 5 and <= 20")
    print("| | SIGMA <= 5 | SIGMA <= 20 |")
    print("|---|---|---|")
    keys = sorted({key for key, _ in summary}, key=lambda x: (x.split()[0] == "bound",
                                                              x.split()[0] == "worst", x))
    for key in keys:
        fmt = "%.1f%%" if "nearest" in key else "%.3f"
        scale = 100 if "nearest" in key else 1
        print("| %s | %s | %s |" % (key, fmt % (scale * summary[key, 5]),
                                    fmt % (scale * summary[key, 20])))


if __name__ == "__main__":
    main()
