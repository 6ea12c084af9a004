#!/usr/bin/env python3
"""oracle_edges.py GPUFILT [SEED [BACKEND]] - gpufilt's --sobel, --scharr,
--laplacian and --convolve (with --divisor, --bias and --border) on every
layout (gray, gray+alpha, RGB, RGBA; 8 and 16 bits), on fresh random images
of awkward sizes (1x1, 1x6, 6x1, 2x3, 7x5, 33x17; many smaller than the
window), against independent oracles:
  - numpy: the correlation over the np.pad'ed image (edge = replicate,
    reflect = reflect101, constant) in exact int64 arithmetic, each rule
    written from its definition, and round(sum / N) with ties away from
    zero in Python integers;
  - OpenCV, where its border and depth allow an exact comparison (not a
    constant border other than 0): cv2.Sobel / cv2.Scharr (CV_64F) for
    |Gx| + |Gy|, cv2.Laplacian (ksize 1, CV_64F), cv2.filter2D in float64
    (correlation; its DFT path for large kernels rounded back to integers)
    followed by the same rounding.
Then the settings' semantics (--divisor and --bias modify the --convolve
stages after them, until the next one of the same name; --border applies to
every stage), and bad values: exit 64 with the flag and its allowed range
named (66 for an unreadable @FILE) and no output file.
Inputs and outputs go through PAM files. Prints the seed (SEED, else
GPUFILT_TEST_SEED, else a fresh one); the first failure names the layout,
size, stages and first difference, and exits 1. BACKEND (cpu by default;
cuda for the GPU) is passed as --backend; the runs go on every core. Run
with Debian's python3 (numpy and OpenCV)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import LAYOUTS, check_image, oracle_start, read_pnm, run, run_all, write_pam  # noqa: E402

try:
    import cv2
except ImportError:  # the numpy oracle still runs
    cv2 = None

SOBEL_X = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]
SCHARR_X = [[-3, 0, 3], [-10, 0, 10], [-3, 0, 3]]
LAPLACIAN = [[0, 1, 0], [1, -4, 1], [0, 1, 0]]
SIZES = [(1, 1), (1, 6), (6, 1), (2, 3), (7, 5), (33, 17)]
MODES = ("replicate", "reflect101", "constant")


def padded(a, ry, rx, mode, value):
    """a (h x w x c) padded by ry rows and rx columns each side."""
    kind = {"replicate": "edge", "reflect101": "reflect", "constant": "constant"}[mode]
    extra = {"constant_values": value} if mode == "constant" else {}
    return np.pad(a, ((ry, ry), (rx, rx), (0, 0)), mode=kind, **extra)


def correlate(a, k, mode, value):
    """sum over the window of k[dy][dx] * P(x + dx - rx, y + dy - ry), int64."""
    k = np.asarray(k, dtype=np.int64)
    kh, kw = k.shape
    h, w = a.shape[:2]
    p = padded(a, kh // 2, kw // 2, mode, value)
    s = np.zeros(a.shape, dtype=np.int64)
    for dy in range(kh):
        for dx in range(kw):
            if k[dy, dx]:
                s += k[dy, dx] * p[dy:dy + h, dx:dx + w]
    return s


def edges(a, rule, mode, value, mx):
    if rule == "laplacian":
        m = np.abs(correlate(a, LAPLACIAN, mode, value))
    else:
        kx = np.array(SOBEL_X if rule == "sobel" else SCHARR_X)
        m = np.abs(correlate(a, kx, mode, value)) + np.abs(correlate(a, kx.T, mode, value))
    return np.minimum(m, mx)


def round_div(s, n):
    """round(s / n), ties away from zero, elementwise, exact (int64)."""
    an = abs(n)
    q = (2 * np.abs(s) + an) // (2 * an)
    return np.where((s < 0) != (n < 0), -q, q)


def convolve(a, k, n, bias, mode, value, mx):
    return np.clip(round_div(correlate(a, k, mode, value), n) + bias, 0, mx)


def cv_border(mode, value):
    if cv2 is None or (mode == "constant" and value != 0):
        return None
    return {"replicate": cv2.BORDER_REPLICATE, "reflect101": cv2.BORDER_REFLECT_101,
            "constant": cv2.BORDER_CONSTANT}[mode]


def cv_src(a, bits):
    return np.ascontiguousarray(a.astype(np.uint16 if bits == 16 else np.uint8))


def cv_edges(a, bits, rule, mode, value, mx):
    """OpenCV's own operators, in float64 (exact for these sums)."""
    b = cv_border(mode, value)
    if b is None:
        return None
    src = cv_src(a, bits)
    if rule == "laplacian":
        m = np.abs(cv2.Laplacian(src, cv2.CV_64F, ksize=1, borderType=b))
    else:
        f = (lambda dx, dy: cv2.Sobel(src, cv2.CV_64F, dx, dy, ksize=3, borderType=b)) \
            if rule == "sobel" else \
            (lambda dx, dy: cv2.Scharr(src, cv2.CV_64F, dx, dy, borderType=b))
        m = np.abs(f(1, 0)) + np.abs(f(0, 1))
    m = np.minimum(np.rint(m).astype(np.int64), mx)
    return m.reshape(a.shape)


def cv_convolve(a, bits, k, n, bias, mode, value, mx):
    """cv2.filter2D (correlation) in float64, then the same rounding."""
    b = cv_border(mode, value)
    if b is None:
        return None
    src = cv_src(a, bits).astype(np.float64)
    s = cv2.filter2D(src, cv2.CV_64F, np.asarray(k, dtype=np.float64), borderType=b)
    s = np.rint(s).astype(np.int64).reshape(a.shape)
    return np.clip(round_div(s, n) + bias, 0, mx)


def kernel_arg(k, sep=","):
    k = np.asarray(k)
    return "%dx%d:%s" % (k.shape[1], k.shape[0], sep.join(str(int(v)) for v in k.ravel()))


def default_divisor(k):
    s = int(np.sum(k))
    return s if s > 0 else 1


def image_check(label, want, want_cv):
    def check(rc, err, path):
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        got, _ = read_pnm(path)
        check_image(label, got, np.asarray(want))
        if want_cv is not None:
            check_image(label + " (OpenCV)", got, want_cv)
    return check


def bad_check(label, status, needles):
    def check(rc, err, path):
        if rc != status:
            raise AssertionError("%s: exit %d, want %d: %s" % (label, rc, status, err))
        for s in needles:
            if s not in err:
                raise AssertionError("%s: '%s' not in the message: %s" % (label, s, err))
        if os.path.exists(path):
            raise AssertionError("%s: an output file was written" % label)
    return check


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_edges.py")
    jobs = []  # (args with {out}, check)

    def border_of(mx):
        mode = MODES[int(rng.integers(0, 3))]
        value = int(rng.integers(0, mx + 1)) if mode == "constant" and rng.integers(0, 2) else 0
        return mode, value

    def border_args(mode, value):
        return ["--border", mode + ("=%d" % value if mode == "constant" else "")]

    def kernel(kw, kh, span):
        k = rng.integers(-span, span + 1, size=(kh, kw))
        k[rng.random(size=(kh, kw)) < 0.15] = 0
        return k

    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        for w, h in SIZES:
            a = rng.integers(0, mx + 1, size=(h, w, ch), dtype=np.int64)
            if rng.integers(0, 2):  # low contrast too, so that fewer sums clamp
                a %= 50
            inp = os.path.join(tmp, "in-%d-%d-%dx%d.pam" % (ch, bits, w, h))
            write_pam(inp, a, bits)
            name = "%dx%d %s %d-bit" % (w, h, ["", "gray", "gray+alpha", "RGB", "RGBA"][ch], bits)
            cases = []  # (args, want, want_cv)
            for rule in ("sobel", "scharr", "laplacian"):
                for mode in MODES:
                    value = int(rng.integers(0, mx + 1)) if mode == "constant" and \
                        rng.integers(0, 3) else 0
                    cases.append((["--" + rule] + border_args(mode, value),
                                  edges(a, rule, mode, value, mx),
                                  cv_edges(a, bits, rule, mode, value, mx)))
            # --convolve: 3x3 and 5x5 in -8..8 with each border, 15x15, 1x7, 7x1,
            # large weights, the default divisor or a random one of either sign,
            # random biases
            shapes = [(3, 3, 8)] * 3 + [(5, 5, 8)] * 3 + [(15, 15, 8), (1, 7, 8), (7, 1, 8),
                                                          (3, 3, 65535), (15, 15, 65535),
                                                          (1, 1, 20)]
            for i, (kw, kh, span) in enumerate(shapes):
                k = kernel(kw, kh, span)
                mode = MODES[i % 3] if i < 6 else border_of(mx)[0]
                value = int(rng.integers(0, mx + 1)) if mode == "constant" and \
                    rng.integers(0, 2) else 0
                args = []
                choice = int(rng.integers(0, 4))
                n, bias = default_divisor(k), 0
                if choice >= 1:
                    n = int(rng.integers(1, 100 if span < 100 else 10 ** 7))
                    n = -n if choice == 2 else n
                    args += ["--divisor", str(n)]
                if choice == 3 or rng.integers(0, 2):
                    bias = int(rng.integers(-300, 301))
                    args += ["--bias", str(bias)]
                sep = [",", " , ", " "][int(rng.integers(0, 3))]
                args += ["--convolve", kernel_arg(k, sep)] + border_args(mode, value)
                cases.append((args, convolve(a, k, n, bias, mode, value, mx),
                               cv_convolve(a, bits, k, n, bias, mode, value, mx)))
            # a kernel from @FILE, rows on lines
            k = kernel(5, 3, 8)
            kfile = os.path.join(tmp, "k-%d-%d-%dx%d.txt" % (ch, bits, w, h))
            with open(kfile, "w") as f:
                f.write("5x3:\n" + "\n".join(" ".join(str(v) for v in row) for row in k) + "\n")
            cases.append((["--convolve", "@" + kfile],
                          convolve(a, k, default_divisor(k), 0, "replicate", 0, mx),
                          cv_convolve(a, bits, k, default_divisor(k), 0, "replicate", 0, mx)))
            # two stages in a row: an edge stage then a convolution, one border
            mode, value = border_of(mx)
            k = kernel(3, 3, 4)
            cases.append((["--laplacian", "--divisor", "-3", "--convolve", kernel_arg(k)] +
                          border_args(mode, value),
                          convolve(edges(a, "laplacian", mode, value, mx), k, -3, 0, mode,
                                   value, mx), None))
            for args, want, want_cv in cases:
                label = "%s %s" % (name, " ".join(args))
                jobs.append(([inp, "-o", "{out}"] + args, image_check(label, want, want_cv)))

    # The settings' semantics, on one RGB 16-bit image: a modifier applies to
    # every --convolve after it until the next of the same name.
    bits, mx = 16, 65535
    a = rng.integers(0, mx + 1, size=(9, 11, 3), dtype=np.int64)
    inp = os.path.join(tmp, "settings.pam")
    write_pam(inp, a, bits)
    k1, k2 = kernel(3, 3, 8), kernel(5, 1, 8)
    d1, d2 = default_divisor(k1), default_divisor(k2)
    K1, K2 = kernel_arg(k1), kernel_arg(k2)

    def chain(*steps):
        b = a
        for k, n, bias in steps:
            b = convolve(b, k, n, bias, "replicate", 0, mx)
        return b
    settings = [
        (["--divisor", "3", "--bias", "5", "--convolve", K1, "--convolve", K2],
         chain((k1, 3, 5), (k2, 3, 5))),
        (["--divisor", "3", "--convolve", K1, "--divisor", "-2", "--bias", "7", "--convolve", K2],
         chain((k1, 3, 0), (k2, -2, 7))),
        (["--convolve", K1, "--divisor", "4", "--convolve", K2], chain((k1, d1, 0), (k2, 4, 0))),
        (["--bias", "-9", "--convolve", K1, "--bias", "0", "--convolve", K2],
         chain((k1, d1, -9), (k2, d2, 0))),
        (["--bias", "9", "--sobel", "--convolve", K1],
         convolve(edges(a, "sobel", "replicate", 0, mx), k1, d1, 9, "replicate", 0, mx)),
        (["--sobel", "--convolve", K1, "--border", "constant=7"],
         convolve(edges(a, "sobel", "constant", 7, mx), k1, d1, 0, "constant", 7, mx)),
        (["--divisor", "+2", "--bias", "-0", "--convolve", K1], chain((k1, 2, 0))),
    ]
    for args, want in settings:
        jobs.append(([inp, "-o", "{out}"] + args, image_check("settings: " + " ".join(args),
                                                               want, None)))

    # Bad values: exit 64 naming the flag and the allowed range, no output.
    g8 = os.path.join(tmp, "in-1-8-7x5.pam")
    bad = [
        (["--convolve", "4x3:" + ",".join(["1"] * 12)], ["--convolve", "odd, 1..15"]),
        (["--convolve", "17x1:" + ",".join(["1"] * 17)], ["--convolve", "odd, 1..15"]),
        (["--convolve", "3x3:1,2,3"], ["--convolve", "takes 9 weights, not 3"]),
        (["--convolve", "3x3:" + ",".join(["1"] * 10)], ["--convolve", "takes 9 weights"]),
        (["--convolve", "1x1:x"], ["--convolve", "-65535..65535"]),
        (["--convolve", "1x1:65536"], ["--convolve", "-65535..65535"]),
        (["--convolve", "1x1:1.5"], ["--convolve", "-65535..65535"]),
        (["--convolve", "3x3"], ["--convolve", "WxH:V,V,..."]),
        (["--divisor", "0", "--convolve", "1x1:1"], ["--divisor", "-2147483647..2147483647"]),
        (["--divisor", "2147483648", "--convolve", "1x1:1"], ["--divisor", "nonzero"]),
        (["--divisor", "two", "--convolve", "1x1:1"], ["--divisor", "nonzero"]),
        (["--bias", "1.5", "--convolve", "1x1:1"], ["--bias", "-2147483647..2147483647"]),
        (["--bias", "-2147483648", "--convolve", "1x1:1"], ["--bias"]),
        (["--convolve", "1x1:1", "--divisor", "3"], ["--divisor", "no stage"]),
        (["--bias", "3", "--sobel"], ["--bias", "no stage"]),
        (["--sobel", "--border", "constant=256"], ["constant=256", "above 255"]),
        (["--convolve", "1x1:2", "--border", "mirror"], ["--border"]),
    ]
    for args, needles in bad:
        jobs.append(([g8, "-o", "{out}"] + args, bad_check("bad: " + " ".join(args), 64, needles)))
    missing = os.path.join(tmp, "no-such-kernel.txt")
    jobs.append(([g8, "-o", "{out}", "--convolve", "@" + missing],
                 bad_check("bad: @missing", 66, ["gpufilt: %s: No such file" % missing])))
    badfile = os.path.join(tmp, "bad-kernel.txt")
    with open(badfile, "w") as f:
        f.write("3x3:\n1 2 3\n4 5 6\n7 8\n")
    jobs.append(([g8, "-o", "{out}", "--convolve", "@" + badfile],
                 bad_check("bad: @file of 8 weights", 64, ["--convolve @", "takes 9 weights"])))

    def one(i):
        args, check = jobs[i]
        path = os.path.join(tmp, "out-%d.pam" % i)
        rc, err = run(gpufilt, [path if x == "{out}" else x for x in args], backend)
        check(rc, err, path)

    run_all(one, len(jobs))
    print("oracle_edges.py: %d checks passed" % len(jobs))


if __name__ == "__main__":
    main()
