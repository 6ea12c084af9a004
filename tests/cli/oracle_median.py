#!/usr/bin/env python3
"""oracle_median.py GPUFILT [SEED [BACKEND]] - gpufilt's --median K against
independent oracles: numpy's median of every K x K window of the np.pad'ed
image (edge = replicate, reflect = reflect101, constant), on fresh random
images of every layout (gray, gray+alpha, RGB, RGBA; 8 and 16 bits) and
awkward sizes (1x1, 1x6, 6x1, 2x3, 7x5, 33x17, sizes smaller than the
window), K in 3, 5, 7, 15 and a random odd K up to 63 on the small images,
every border mode; beside it OpenCV's cv2.medianBlur for the replicate
border where OpenCV takes the layout and K (8-bit: 1, 3 or 4 channels, any
K; 16-bit: 1, 3 or 4 channels, K 3 or 5). Then bad values of --median:
exit 64, a message naming the flag, no output written. Prints its seed
(SEED, else GPUFILT_TEST_SEED, else a fresh one); the first difference
names the layout, size, arguments and sample, and exits 1. BACKEND (cpu by
default) is passed as --backend; the runs go on every core. Run it with
Debian's python3 (numpy and OpenCV)."""
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import check_image, oracle_start, read_pnm, run, run_all, write_pam  # noqa: E402

try:
    import cv2
except ImportError:  # the numpy oracle still runs
    cv2 = None

LAYOUTS = [(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]
NAMES = {1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}
PAD = {"replicate": "edge", "reflect101": "reflect", "constant": "constant"}


def padded(a, k, mode, value):
    """a (h x w x c) with k//2 border pixels each side, as --border gives them.
    np.pad's reflect is OpenCV's REFLECT_101 (the edge pixel not repeated),
    applied again where the pad is wider than the image; on an axis of one
    pixel it repeats that pixel, as gpufilt does."""
    r = k // 2
    extra = {"constant_values": value} if mode == "constant" else {}
    return np.pad(a, ((r, r), (r, r), (0, 0)), mode=PAD[mode], **extra)


def median_ref(a, k, mode, value):
    """The median of every K x K window of the padded image, per channel."""
    p = padded(a, k, mode, value)
    win = sliding_window_view(p, (k, k), axis=(0, 1))  # h x w x c x k x k
    flat = win.reshape(win.shape[:3] + (k * k,))
    return np.partition(flat, k * k // 2, axis=-1)[..., k * k // 2]


def cv2_median(a, k, bits):
    """cv2.medianBlur (replicate border) where OpenCV takes the layout and K."""
    ch = a.shape[2]
    if cv2 is None or ch == 2 or (bits == 16 and k > 5):
        return None
    src = np.ascontiguousarray(a.astype(np.uint16 if bits == 16 else np.uint8))
    if ch == 1:
        src = src[:, :, 0]
    out = cv2.medianBlur(src, k)
    return out.reshape(a.shape).astype(np.int64)


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_median.py")
    sizes = [(1, 1), (1, 6), (6, 1), (2, 3), (7, 5), (33, 17), (4, 9), (70, 41)]
    jobs = []  # (args with {out}, label, want, want_cv)
    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        for w, h in sizes:
            # random samples, and on some images few distinct values, so that
            # windows hold ties
            a = rng.integers(0, mx + 1, size=(h, w, ch), dtype=np.int64)
            if rng.integers(0, 2):
                a = rng.choice(rng.integers(0, mx + 1, size=3), size=(h, w, ch))
            inp = os.path.join(tmp, "in-%d-%d-%dx%d.pam" % (ch, bits, w, h))
            write_pam(inp, a, bits)
            name = "%dx%d %s %d-bit" % (w, h, NAMES[ch], bits)
            ks = [3, 5, 7, 15]
            if w * h <= 2000:
                ks.append(int(rng.integers(8, 32)) * 2 + 1)  # 17 .. 63
            for k in ks:
                for mode in ("replicate", "reflect101", "constant"):
                    v = int(rng.integers(0, mx + 1))
                    border = mode + ("=%d" % v if mode == "constant" else "")
                    want = median_ref(a, k, mode, v if mode == "constant" else 0)
                    want_cv = cv2_median(a, k, bits) if mode == "replicate" else None
                    jobs.append(([inp, "-o", "{out}", "--median", str(k), "--border", border],
                                 "%s --median %d --border %s" % (name, k, border), want, want_cv))
            # the default border is replicate
            jobs.append(([inp, "-o", "{out}", "--median", "3"], "%s --median 3" % name,
                         median_ref(a, 3, "replicate", 0), None))

    def one(i):
        args, label, want, want_cv = jobs[i]
        path = os.path.join(tmp, "out-%d.pam" % i)
        rc, err = run(gpufilt, [path if x == "{out}" else x for x in args], backend)
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        got, gbits = read_pnm(path)
        if gbits != int(label.split("-bit")[0].split()[-1]):
            raise AssertionError("%s: %d bits" % (label, gbits))
        check_image(label, got, want)
        if want_cv is not None:
            check_image(label + " (cv2.medianBlur)", got, want_cv)

    run_all(one, len(jobs))

    # bad values: exit 64 (EX_USAGE), the message names the flag, no output
    inp = os.path.join(tmp, "in-1-8-7x5.pam")
    bad = ["4", "2", "1", "0", "65", "64", "-3", "3x3", "abc", "", "5.0", " 5", "99999999999"]
    for arg in bad:
        out = os.path.join(tmp, "bad.pam")
        rc, err = run(gpufilt, [inp, "-o", out, "--median", arg], backend)
        want = "--median: size must be K, odd, 3..63, not '%s'" % arg
        if rc != 64 or want not in err or os.path.exists(out):
            raise AssertionError("--median '%s': exit %d, stderr %r, output %s" % (
                arg, rc, err, "written" if os.path.exists(out) else "absent"))
    out = os.path.join(tmp, "bad.pam")
    rc, err = run(gpufilt, [inp, "-o", out, "--median", "3", "--border", "constant=256"], backend)
    if rc != 64 or "--border" not in err or os.path.exists(out):
        raise AssertionError("--border constant=256 on 8-bit: exit %d, %r" % (rc, err))
    with_cv = sum(1 for job in jobs if job[3] is not None)
    print("oracle_median.py: %d images checked (%d also against cv2.medianBlur), %d bad values "
          "refused" % (len(jobs), with_cv, len(bad) + 1))


if __name__ == "__main__":
    main()
