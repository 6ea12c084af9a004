#!/usr/bin/env python3
"""oracle_morph.py GPUFILT [SEED [BACKEND]] - gpufilt's morphology stages
(--erode, --dilate, --open, --close with a rectangular structuring element)
on fresh random images of every layout (gray, gray+alpha, RGB, RGBA; 8 and
16 bits) and awkward sizes (1x1, 1x6, 6x1, 2x3, 7x5, 33x17: several smaller
than the element), square and non-square elements, every border mode,
against two independent oracles:
  numpy: np.pad (edge = replicate, reflect = reflect101, constant) and the
    minimum or maximum of every sliding_window_view window; open and close as
    two such passes, the second padding the first's result;
  OpenCV: cv2.erode, cv2.dilate and cv2.morphologyEx(MORPH_OPEN /
    MORPH_CLOSE) with np.ones((H, W)), with OpenCV's default border where
    gpufilt's is replicate (a constant that never wins, so the two agree) and
    with borderType BORDER_REFLECT_101 or BORDER_CONSTANT (borderValue V in
    every channel) for the others, on the layouts OpenCV takes (1, 3 and 4
    channels).
Then bad values: an even, too small, too large or malformed size, and a
constant above the samples' range, must exit 64 with a message naming the
flag and write no output. With a BACKEND other than cpu the runs take the
kernel variants in turn (--variant global, vanherk, fused, packed, or the
default).
Prints the seed (SEED, else GPUFILT_TEST_SEED, else a fresh one); the first
difference names the layout, size, stage and sample, and exits 1. BACKEND
(cpu by default; cuda on a GPU machine) is passed as --backend; the runs go
on every core. Run it with Debian's python3 (numpy and OpenCV)."""
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layouts import LAYOUTS, check_image, oracle_start, read_pnm, run, run_all, write_pam  # noqa: E402

try:
    import cv2
except ImportError:  # the numpy oracle still runs
    cv2 = None

OPS = ("erode", "dilate", "open", "close")
SIZES = [(1, 1), (1, 6), (6, 1), (2, 3), (7, 5), (33, 17)]
# (W, H) beside 3x3 and 5x5: non-square, one-sided, larger than every image
OTHER = [(1, 1), (7, 3), (3, 7), (1, 9), (9, 1), (15, 15), (7, 5), (31, 5), (5, 31),
         (33, 17), (63, 63), (63, 1), (1, 63)]
MODES = ("replicate", "reflect101", "constant")
VARIANTS = (None, "global", "vanherk", "fused", "packed")  # None: the default
NAMES = {1: "gray", 2: "gray+alpha", 3: "RGB", 4: "RGBA"}


def one_pass(a, mx, kw, kh, mode, value):
    """Erode (mx False) or dilate (mx True) h x w x c array a."""
    ry, rx = kh // 2, kw // 2
    kind = {"replicate": "edge", "reflect101": "reflect", "constant": "constant"}[mode]
    extra = {"constant_values": value} if mode == "constant" else {}
    p = np.pad(a, ((ry, ry), (rx, rx), (0, 0)), mode=kind, **extra)
    win = sliding_window_view(p, (kh, kw), axis=(0, 1))  # h x w x c x kh x kw
    return win.max(axis=(-2, -1)) if mx else win.min(axis=(-2, -1))


def morph(a, op, kw, kh, mode, value):
    first, second = {"erode": (False, None), "dilate": (True, None),
                     "open": (False, True), "close": (True, False)}[op]
    r = one_pass(a, first, kw, kh, mode, value)
    return r if second is None else one_pass(r, second, kw, kh, mode, value)


def cv2_morph(a, op, kw, kh, mode, value, bits):
    """OpenCV's result, or None where it does not take the layout."""
    ch = a.shape[2]
    if cv2 is None or ch == 2:
        return None
    src = np.ascontiguousarray(a[:, :, 0] if ch == 1 else a).astype(
        np.uint16 if bits == 16 else np.uint8)
    kernel = np.ones((kh, kw), np.uint8)
    args = {}  # replicate: OpenCV's default border
    if mode == "reflect101":
        args = {"borderType": cv2.BORDER_REFLECT_101}
    elif mode == "constant":
        args = {"borderType": cv2.BORDER_CONSTANT, "borderValue": (value,) * 4}
    if op == "erode":
        out = cv2.erode(src, kernel, **args)
    elif op == "dilate":
        out = cv2.dilate(src, kernel, **args)
    else:
        kind = cv2.MORPH_OPEN if op == "open" else cv2.MORPH_CLOSE
        out = cv2.morphologyEx(src, kind, kernel, **args)
    return out.reshape(a.shape).astype(np.int64)


def image_check(label, bits, want, want_cv):
    def check(rc, err, path):
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        got, gbits = read_pnm(path)
        if gbits != bits:
            raise AssertionError("%s: %d bits, want %d" % (label, gbits, bits))
        check_image(label, got, want)
        if want_cv is not None:
            check_image(label + " (OpenCV)", got, want_cv)
    return check


def bad_check(label, needles):
    """Exit 64, a message with every one of needles (the flag, the value),
    no output."""
    def check(rc, err, path):
        if rc != 64:
            raise AssertionError("%s: exit %d, want 64: %s" % (label, rc, err))
        for n in needles:
            if n not in err:
                raise AssertionError("%s: the message lacks %r: %s" % (label, n, err))
        if os.path.exists(path):
            raise AssertionError("%s: wrote %s" % (label, path))
    return check


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("oracle_morph.py")
    jobs = []  # (args with {out}, check)
    opencv = 0
    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        for w, h in SIZES:
            a = rng.integers(0, mx + 1, size=(h, w, ch), dtype=np.int64)
            inp = os.path.join(tmp, "in-%d-%d-%dx%d.pam" % (ch, bits, w, h))
            write_pam(inp, a, bits)
            name = "%dx%d %s %d-bit" % (w, h, NAMES[ch], bits)
            for op in OPS:
                elements = [(k, k, m) for k in (3, 5) for m in MODES]
                for i in rng.choice(len(OTHER), size=3, replace=False):
                    elements.append(OTHER[i] + (MODES[int(rng.integers(0, 3))],))
                for kw, kh, mode in elements:
                    v = int(rng.integers(0, mx + 1)) if mode == "constant" else 0
                    border = mode + ("=%d" % v if mode == "constant" else "")
                    size = str(kw) if kw == kh else "%dx%d" % (kw, kh)
                    args = ["--" + op, size, "--border", border]
                    want_cv = cv2_morph(a, op, kw, kh, mode, v, bits)
                    opencv += want_cv is not None
                    jobs.append(([inp, "-o", "{out}"] + args,
                                 image_check("%s %s" % (name, " ".join(args)), bits,
                                             morph(a, op, kw, kh, mode, v), want_cv)))
            # two stages in one run: the image passes between them (on the
            # device with --backend cuda)
            kw, kh = OTHER[int(rng.integers(0, len(OTHER)))][:2]
            want = morph(morph(a, "close", 3, 5, "reflect101", 0), "erode", kw, kh,
                         "reflect101", 0)
            args = ["--close", "3x5", "--erode", "%dx%d" % (kw, kh), "--border", "reflect101"]
            jobs.append(([inp, "-o", "{out}"] + args,
                         image_check("%s %s" % (name, " ".join(args)), bits, want, None)))

    inp8 = os.path.join(tmp, "in-1-8-7x5.pam")
    for op in OPS:
        flag = "--" + op
        for value in ("4", "0", "-3", "64", "65", "3x4", "2x3", "3x65", "x3", "3x", "3x3x3",
                      "abc", "3.0", "", " 3"):
            jobs.append(([inp8, "-o", "{out}", flag, value], bad_check(
                "%s '%s'" % (flag, value),
                ["%s: size must be K or WxH, odd, 1..63, not '%s'" % (flag, value)])))
        jobs.append(([inp8, "-o", "{out}", flag, "3", "--border", "constant=256"],
                     bad_check("%s 3 --border constant=256 on 8-bit" % flag,
                               ["--border constant=256", "255"])))

    def one(i):
        args, check = jobs[i]
        path = os.path.join(tmp, "out-%d.pam" % i)
        args = [path if x == "{out}" else x for x in args]
        if backend != "cpu":  # every kernel variant in turn, and the default
            variant = VARIANTS[i % len(VARIANTS)]
            args += ["--variant", variant] if variant else []
        rc, err = run(gpufilt, args, backend)
        check(rc, err, path)

    run_all(one, len(jobs))
    print("oracle_morph.py: %d checks passed (%d also against OpenCV)" % (len(jobs), opencv))


if __name__ == "__main__":
    main()
