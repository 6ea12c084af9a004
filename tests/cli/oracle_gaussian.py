#!/usr/bin/env python3
"""oracle_gaussian.py GPUFILT [SEED [BACKEND]] - --gaussian SIGMA[,K],
--unsharp SIGMA[,AMOUNT[,THRESHOLD]] and --mean K|WxH through gpufilt, on
fresh random PAM images of every layout (gray, gray+alpha, RGB, RGBA; 8 and
16 bits) and awkward sizes, every border mode, against independent oracles:

- numpy, from the rules in src/stages/gaussian.h and mean.h: the Gaussian's
  weights recomputed in Python (math.exp, float64: g_i = exp(-(i-c)^2 /
  (2 SIGMA^2)), w_i = floor(2^14 g_i / sum g + 0.5), the centre taking the
  rest), the padded image by np.pad (edge = replicate, reflect =
  reflect101, constant = constant=V), the row and column sums in int64
  (below 2^44) and one rounding (v + 2^27) >> 28; the unsharp mask's
  x + floor((d a + 128) / 256) where |d| > THRESHOLD (a = AMOUNT 256
  rounded half away from zero, as lround); the box mean's
  floor((2 s + area) / (2 area)) by an integral image;
- OpenCV beside it: the same integer Gaussian by cv2.sepFilter2D in float64
  (exact: every partial sum is an integer below 2^53), whose borders are
  OpenCV's own (a constant V by linearity: V 2^28 plus the filter of x - V
  with zeros outside); cv2.blur for the box mean where its rule is the same
  (8-bit any window, 16-bit up to 9x9: from about 159 pixels of window
  OpenCV's 16-bit blur misrounds; replicate and reflect101).

Then the bad values: exit 64, a message naming the flag, no output file.
Prints the seed (SEED, else GPUFILT_TEST_SEED, else a fresh one); the first
difference names the layout, size, options and sample, and exits 1. BACKEND
(cpu by default) goes to --backend; the runs go on every core."""
import concurrent.futures
import math
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import check_image, oracle_start, read_pnm, write_pam  # noqa: E402

try:
    import cv2
except ImportError:  # the numpy oracle still runs
    cv2 = None

LAYOUTS = [(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]
LAYOUT_NAMES = {1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}
NP_MODE = {"replicate": "edge", "reflect101": "reflect", "constant": "constant"}


# ---- the rules ----

def gauss_weights(sigma, k):
    """The K integer weights of SIGMA (gaussian.h), summing to 2^14."""
    c = (k - 1) // 2
    g = [math.exp(-float((i - c) * (i - c)) / (2.0 * sigma * sigma)) for i in range(k)]
    s = 0.0
    for v in g:  # in order, as the C sum
        s += v
    w = [int(math.floor(16384 * v / s + 0.5)) for v in g]
    w[c] += 16384 - sum(w)
    return w


def gauss_ksize(sigma, k, bits):
    """K, else the default: floor(6 SIGMA + 1.5) | 1 (8-bit), floor(8 SIGMA +
    1.5) | 1 (16-bit), capped at 127."""
    if k:
        return k
    return min(127, int(math.floor((6.0 if bits == 8 else 8.0) * sigma + 1.5)) | 1)


def pad(a, rx, ry, mode, value):
    extra = {"constant_values": value} if mode == "constant" else {}
    return np.pad(a, ((ry, ry), (rx, rx), (0, 0)), mode=NP_MODE[mode], **extra)


def gauss_sums(a, sigma, k, mode, value):
    """v = sum_i sum_j w_i w_j P(x + j - r, y + i - r), exact in int64."""
    w, r = gauss_weights(sigma, k), k // 2
    h, wd = a.shape[:2]
    p = pad(a.astype(np.int64), r, r, mode, value)
    rows = sum(w[j] * p[:, j:j + wd] for j in range(k))          # below 2^30
    return sum(w[i] * rows[i:i + h] for i in range(k))             # below 2^44


def gauss_round(v):
    return (v + (1 << 27)) >> 28


def gauss_numpy(a, sigma, k, mode, value):
    return gauss_round(gauss_sums(a, sigma, k, mode, value))


def gauss_cv2(a, sigma, k, mode, value):
    """The same integer Gaussian by OpenCV's float64 separable filter with
    its own border handling; a constant V by linearity."""
    if cv2 is None:
        return None
    w = np.array(gauss_weights(sigma, k), dtype=np.float64)
    border = {"replicate": cv2.BORDER_REPLICATE, "reflect101": cv2.BORDER_REFLECT_101,
              "constant": cv2.BORDER_CONSTANT}[mode]
    x = np.ascontiguousarray(a.astype(np.float64) - (value if mode == "constant" else 0))
    v = cv2.sepFilter2D(x, cv2.CV_64F, w, w, borderType=border).reshape(a.shape)
    if not np.all(v == np.round(v)):
        raise AssertionError("cv2.sepFilter2D: a non-integer sum, the oracle is not exact")
    v = v.astype(np.int64) + ((value << 28) if mode == "constant" else 0)
    return gauss_round(v)


def lround(x):
    """C's lround for x >= 0: half away from zero."""
    return int(math.floor(x + 0.5))


def unsharp(a, g, amount, threshold, bits):
    """x + floor((d a + 128) / 256) clamped where |x - g| > THRESHOLD, else x."""
    a_int, mx = lround(amount * 256), (1 << bits) - 1
    d = a - g
    v = np.clip(a + (d * a_int + 128) // 256, 0, mx)  # // floors on int64
    return np.where(np.abs(d) > threshold, v, a)


def box_mean(a, kw, kh, mode, value):
    rx, ry, area = kw // 2, kh // 2, kw * kh
    h, w = a.shape[:2]
    p = pad(a.astype(np.int64), rx, ry, mode, value)
    c = np.zeros((p.shape[0] + 1, p.shape[1] + 1, p.shape[2]), dtype=np.int64)
    c[1:, 1:] = p.cumsum(0).cumsum(1)
    s = c[kh:kh + h, kw:kw + w] - c[:h, kw:kw + w] - c[kh:kh + h, :w] + c[:h, :w]
    return (2 * s + area) // (2 * area)


def box_mean_cv2(a, kw, kh, mode, bits):
    """cv2.blur where OpenCV rounds the same way: 8-bit any window, 16-bit up
    to 9x9; replicate and reflect101."""
    if cv2 is None or mode == "constant" or (bits == 16 and (kw > 9 or kh > 9)):
        return None
    border = cv2.BORDER_REPLICATE if mode == "replicate" else cv2.BORDER_REFLECT_101
    src = np.ascontiguousarray(a.astype(np.uint16 if bits == 16 else np.uint8))
    return cv2.blur(src, (kw, kh), borderType=border).reshape(a.shape).astype(np.int64)


# ---- the jobs ----

CV2_CHECKS = [0]  # the image checks that OpenCV takes part in


def image_check(label, wants):
    """gpufilt's output equals every oracle in wants [(name, array or None)]."""
    CV2_CHECKS[0] += any(w is not None and name.find("cv2") >= 0 for name, w in wants)

    def check(rc, err, path, bits):
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err.strip()))
        got, gbits = read_pnm(path)
        if gbits != bits:
            raise AssertionError("%s: %d bits, want %d" % (label, gbits, bits))
        for name, want in wants:
            if want is not None:
                check_image("%s (%s)" % (label, name), got, want)
    return check


def usage_check(label, flag):
    """Exit 64, a message naming the flag, no output."""
    def check(rc, err, path, bits):
        if rc != 64:
            raise AssertionError("%s: exit %d, want 64 (%s)" % (label, rc, err.strip()))
        if flag not in err:
            raise AssertionError("%s: the message does not name %s: %s" % (label, flag,
                                                                          err.strip()))
        if os.path.exists(path):
            raise AssertionError("%s: an output file was written" % label)
    return check


def border_args(mode, value):
    return ["--border", mode + ("=%d" % value if mode == "constant" else "")]


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_gaussian.py")
    sizes = [(1, 1), (1, 7), (7, 1), (2, 2), (7, 5), (31, 33), (3, 2), (173, 3),
             (int(rng.integers(1, 50)), int(rng.integers(1, 50)))]
    modes = ["replicate", "reflect101", "constant"]
    jobs = []  # (args with {out}, bits, check)

    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        for w, h in sizes:
            a = rng.integers(0, mx + 1, size=(h, w, ch), dtype=np.int64)
            a.flat[0] |= 1  # never all zero
            inp = os.path.join(tmp, "in-%d-%d-%dx%d.pam" % (ch, bits, w, h))
            write_pam(inp, a, bits)
            name = "%dx%d %s %d-bit" % (w, h, LAYOUT_NAMES[ch], bits)
            small = w * h <= 35  # 7x5 and below: every window is larger

            def border(i):
                mode = modes[i % 3] if i >= 0 else modes[int(rng.integers(0, 3))]
                return mode, int(rng.integers(0, mx + 1)) if mode == "constant" else 0

            # --gaussian SIGMA[,K]: K 0 is the default for the depth
            gcfg = [("0.8", 0), ("2", 5), ("1.5", 3), ("3.3", 9), ("0.1", 0), ("5", 0),
                    ("%.2f" % rng.uniform(0.1, 4), int(rng.choice([0, 3, 7, 11, 25])))]
            if small:
                gcfg += [("20", 127), ("%.3f" % rng.uniform(0.1, 20), 127), ("20", 0),
                         ("12.5", 0)]
            for i, (s, k) in enumerate(gcfg):
                for m in ((i,) if not small else (0, 1, 2)):
                    mode, v = border(m)
                    sigma, kk = float(s), gauss_ksize(float(s), k, bits)
                    args = ["--gaussian", s + (",%d" % k if k else "")] + border_args(mode, v)
                    jobs.append(([inp, "-o", "{out}"] + args, bits, image_check(
                        "%s %s (K %d)" % (name, " ".join(args), kk),
                        [("numpy", gauss_numpy(a, sigma, kk, mode, v)),
                         ("cv2.sepFilter2D", gauss_cv2(a, sigma, kk, mode, v))])))

            # --unsharp SIGMA[,AMOUNT[,THRESHOLD]], the Gaussian at its default K;
            # AMOUNT 0.009765625 is 2.5 / 256: a = 3 (half away from zero)
            ucfg = [("1", None, None), ("0.6", "0.5", 3), ("1.3", "10", 1), ("0.5", "0", 0),
                    ("2", "2.5", None), ("0.8", "0.009765625", 0),
                    ("%.2f" % rng.uniform(0.1, 3), "%.3f" % rng.uniform(0, 10),
                     int(rng.integers(0, mx // 8 + 1))),
                    ("0.7", "4", mx)]
            if small:
                ucfg += [("6", "1.7", 2), ("%.2f" % rng.uniform(3, 20), "1", 0)]
            for i, (s, am, t) in enumerate(ucfg):
                mode, v = border(i)
                sigma = float(s)
                kk = gauss_ksize(sigma, 0, bits)
                spec = s + ("," + am if am is not None else "") + \
                    (",%d" % t if t is not None else "")
                amount = float(am) if am is not None else 1.0
                thr = t if t is not None else 0
                args = ["--unsharp", spec] + border_args(mode, v)
                want = unsharp(a, gauss_numpy(a, sigma, kk, mode, v), amount, thr, bits)
                gcv = gauss_cv2(a, sigma, kk, mode, v)
                wants = [("numpy", want)]
                if gcv is not None:
                    wants.append(("the Gaussian by cv2.sepFilter2D",
                                  unsharp(a, gcv, amount, thr, bits)))
                if am == "0" or t == mx:
                    wants.append(("the input", a))
                jobs.append(([inp, "-o", "{out}"] + args, bits, image_check(
                    "%s %s (K %d)" % (name, " ".join(args), kk), wants)))

            # --mean K|WxH, non-square and large windows
            mcfg = [(7, 3), (1, 9), (17, 5), (63, 63), (3, 3), (5, 5), (1, 1), (63, 1),
                    (9, 9), (15, 15),
                    (1 + 2 * int(rng.integers(0, 32)), 1 + 2 * int(rng.integers(0, 32)))]
            for i, (kw, kh) in enumerate(mcfg):
                for m in ((i, i + 1) if kw * kh > 1 else (i,)):
                    mode, v = border(m)
                    spec = "%d" % kw if kw == kh and i % 2 else "%dx%d" % (kw, kh)
                    args = ["--mean", spec] + border_args(mode, v)
                    jobs.append(([inp, "-o", "{out}"] + args, bits, image_check(
                        "%s %s" % (name, " ".join(args)),
                        [("numpy", box_mean(a, kw, kh, mode, v)),
                         ("cv2.blur", box_mean_cv2(a, kw, kh, mode, bits))])))

    # the edges of the ranges are accepted
    a8 = rng.integers(0, 256, size=(6, 9, 1), dtype=np.int64)
    a16 = rng.integers(0, 65536, size=(6, 9, 3), dtype=np.int64)
    in8, in16 = os.path.join(tmp, "edge8.pam"), os.path.join(tmp, "edge16.pam")
    write_pam(in8, a8, 8)
    write_pam(in16, a16, 16)
    for inp, a, bits in ((in8, a8, 8), (in16, a16, 16)):
        mx = (1 << bits) - 1
        for args, want in (
                (["--gaussian", "0.1"], gauss_numpy(a, 0.1, 3, "replicate", 0)),
                (["--gaussian", "20"], gauss_numpy(a, 20.0, gauss_ksize(20.0, 0, bits),
                                                   "replicate", 0)),
                (["--gaussian", ".5,127"], gauss_numpy(a, 0.5, 127, "replicate", 0)),
                (["--gaussian", "1", "--border", "constant=%d" % mx],
                 gauss_numpy(a, 1.0, gauss_ksize(1.0, 0, bits), "constant", mx)),
                (["--unsharp", "1,10,%d" % mx], a),
                (["--unsharp", "0.1,0"], a),
                (["--mean", "63", "--border", "constant=%d" % mx],
                 box_mean(a, 63, 63, "constant", mx)),
                (["--mean", "1x63"], box_mean(a, 1, 63, "replicate", 0))):
            jobs.append(([inp, "-o", "{out}"] + args, bits, image_check(
                "9x6 %d-bit %s" % (bits, " ".join(args)), [("numpy", want)])))

    # bad values: exit 64, the flag named, nothing written
    for args, flag in ((["--gaussian", "0"], "--gaussian"),
                       (["--gaussian", "21"], "--gaussian"),
                       (["--gaussian", "20.01"], "--gaussian"),
                       (["--gaussian", "0.09"], "--gaussian"),
                       (["--gaussian", "2,4"], "--gaussian"),
                       (["--gaussian", "2,129"], "--gaussian"),
                       (["--gaussian", "2,1"], "--gaussian"),
                       (["--gaussian", "2,"], "--gaussian"),
                       (["--gaussian", "x"], "--gaussian"),
                       (["--gaussian", "-1"], "--gaussian"),
                       (["--unsharp", "1,11"], "--unsharp"),
                       (["--unsharp", "1,-1"], "--unsharp"),
                       (["--unsharp", "1,1,-1"], "--unsharp"),
                       (["--unsharp", "1,1,65536"], "--unsharp"),
                       (["--unsharp", "0"], "--unsharp"),
                       (["--unsharp", "1,x"], "--unsharp"),
                       (["--mean", "4"], "--mean"),
                       (["--mean", "65"], "--mean"),
                       (["--mean", "3x4"], "--mean"),
                       (["--mean", "0"], "--mean"),
                       (["--mean", "65x1"], "--mean"),
                       (["--gaussian", "1", "--border", "constant=256"], "--border"),
                       (["--unsharp", "1", "--border", "constant=256"], "--border"),
                       (["--mean", "3", "--border", "constant=256"], "--border"),
                       (["--gaussian", "1", "--border", "wrap"], "--border")):
        jobs.append(([in8, "-o", "{out}"] + args, 8, usage_check("8-bit " + " ".join(args),
                                                                  flag)))
    jobs.append(([in16, "-o", "{out}", "--gaussian", "1", "--border", "constant=65536"], 16,
                 usage_check("16-bit --gaussian 1 --border constant=65536", "--border")))

    def one(i):
        args, bits, check = jobs[i]
        path = os.path.join(tmp, "out-%d.pam" % i)
        r = subprocess.run([gpufilt] + [path if x == "{out}" else x for x in args] +
                           ["--backend", backend, "-q"], capture_output=True)
        check(r.returncode, r.stderr.decode(), path, bits)
        if os.path.exists(path):
            os.remove(path)

    try:
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            futures = [pool.submit(one, i) for i in range(len(jobs))]
            for f in futures:
                try:
                    f.result()  # the first failure, in order
                except AssertionError as e:
                    for g in futures:
                        g.cancel()
                    print("oracle_gaussian.py: FAILED: %s" % e)
                    print("oracle_gaussian.py: replay with: oracle_gaussian.py GPUFILT %d %s"
                          % (seed, backend))
                    sys.exit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("oracle_gaussian.py: %d checks passed (%d images also against OpenCV)" % (
        len(jobs), CV2_CHECKS[0]))


if __name__ == "__main__":
    main()
