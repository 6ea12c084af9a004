#!/usr/bin/env python3
"""layouts.py GPUFILT [SEED [BACKEND]] - every layout (gray, gray+alpha, RGB,
RGBA; 8 and 16 bits) through every stage of gpufilt, on fresh random images
of awkward sizes, against independent oracles: numpy for every stage,
OpenCV's cv2.blur beside it for the box mean where OpenCV has the border
mode, and exact Python fractions for Otsu's level. Inputs and image outputs
go through PAM files (the one format that holds every layout), report
outputs through their CSV. Prints the seed (SEED, else GPUFILT_TEST_SEED,
else a fresh one); a failure names the layout, size, stage and first
difference, and exits 1. BACKEND (cpu by default; cuda in make test-gpu) is
passed as --backend; the runs go on every core. Run by
tests/cli/layouts.bats with Debian's python3 (numpy and OpenCV)."""
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

try:
    import cv2
except ImportError:  # the numpy oracle still runs; the bats test asks for OpenCV
    cv2 = None

LAYOUTS = [(c, b) for b in (8, 16) for c in (1, 2, 3, 4)]
TUPLE = {1: "GRAYSCALE", 2: "GRAYSCALE_ALPHA", 3: "RGB", 4: "RGB_ALPHA"}
NAMES = {1: ["gray"], 2: ["gray", "alpha"], 3: ["red", "green", "blue"],
         4: ["red", "green", "blue", "alpha"]}


def write_pam(path, a, bits):
    """a: h x w x c array of samples."""
    h, w, c = a.shape
    hdr = "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n" % (
        w, h, c, (1 << bits) - 1, TUPLE[c])
    data = a.astype(">u2" if bits == 16 else "u1").tobytes()
    with open(path, "wb") as f:
        f.write(hdr.encode() + data)


def read_pnm(path):
    """(h x w x c array, bits) of a P5, P6 or P7 file as gpufilt writes them."""
    d = open(path, "rb").read()
    if d[:2] == b"P7":
        head, data = d.split(b"ENDHDR\n", 1)
        f = dict(line.split(b" ", 1) for line in head.split(b"\n")[1:] if b" " in line)
        w, h, c, m = (int(f[k]) for k in (b"WIDTH", b"HEIGHT", b"DEPTH", b"MAXVAL"))
    else:
        parts = d.split(b"\n", 3)
        w, h = map(int, parts[1].split())
        m, c, data = int(parts[2]), 3 if d[:2] == b"P6" else 1, parts[3]
    bits = 16 if m > 255 else 8
    a = np.frombuffer(data, dtype=">u2" if bits == 16 else "u1", count=w * h * c)
    return a.reshape(h, w, c).astype(np.int64), bits


def run(gpufilt, args, backend):
    r = subprocess.run([gpufilt] + args + ["-q", "--backend", backend], capture_output=True)
    return r.returncode, r.stderr.decode()


def oracle_start(name):
    """The command line every oracle takes, GPUFILT [SEED [BACKEND]]: (gpufilt,
    seed, backend, rng, a scratch folder). SEED defaults to GPUFILT_TEST_SEED,
    else a fresh one; it is printed with the command that replays it."""
    gpufilt = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else \
        int(os.environ.get("GPUFILT_TEST_SEED", random.randrange(1 << 30))) % (1 << 63)
    backend = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    print("%s seed %d, --backend %s (%s GPUFILT %d %s replays it)" % (
        name, seed, backend, name, seed, backend))
    return gpufilt, seed, backend, np.random.default_rng(seed), tempfile.mkdtemp()


def run_all(one, n):
    """one(i) for i in range(n) on every core; the first failure, in order,
    raises."""
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for f in [pool.submit(one, i) for i in range(n)]:
            f.result()


def box_mean(a, k, mode, value):
    r, area = k // 2, k * k
    pad = {"replicate": ("edge", {}), "reflect101": ("reflect", {}),
           "constant": ("constant", {"constant_values": value})}[mode]
    p = np.pad(a, ((r, r), (r, r), (0, 0)), mode=pad[0], **pad[1])
    h, w = a.shape[:2]
    s = sum(p[dy:dy + h, dx:dx + w] for dy in range(k) for dx in range(k))
    return (2 * s + area) // (2 * area)


def cv2_mean(a, k, mode, bits):
    """cv2.blur as a second oracle, where it has the border mode and depth."""
    if cv2 is None or mode == "constant":
        return None
    border = cv2.BORDER_REPLICATE if mode == "replicate" else cv2.BORDER_REFLECT_101
    src = np.ascontiguousarray(a.astype(np.uint16 if bits == 16 else np.uint8))
    out = cv2.blur(src, (k, k), borderType=border)
    return out.reshape(a.shape).astype(np.int64)


def otsu(bins):
    """Otsu's level by exact fractions: argmax of (s0 N - S w0)^2 / (w0 w1),
    the smallest t on ties, 0 when nothing splits."""
    n, total = int(bins.sum()), int((np.arange(len(bins)) * bins).sum())
    cw, cs = np.cumsum(bins), np.cumsum(np.arange(len(bins)) * bins)
    best, bnum, bden = 0, -1, 1
    for t in np.nonzero(bins[:-1])[0]:  # an empty bin repeats the split before it
        w0, s0 = int(cw[t]), int(cs[t])
        if w0 == 0 or w0 == n:
            continue
        num, den = (s0 * n - total * w0) ** 2, w0 * (n - w0)
        if bnum < 0 or num * bden > bnum * den:
            best, bnum, bden = int(t), num, den
    return best


def orient(a, op):
    return {"--transpose": lambda x: x.transpose(1, 0, 2),
            "--transverse": lambda x: np.rot90(x, 2).transpose(1, 0, 2),
            "--rotate 90": lambda x: np.rot90(x, -1),
            "--rotate 180": lambda x: np.rot90(x, 2),
            "--rotate 270": lambda x: np.rot90(x, -3),
            "--flip": np.flipud, "--flop": np.fliplr}[op](a)


def check_image(label, got, want):
    if got.shape != want.shape:
        raise AssertionError("%s: shape %s, want %s" % (label, got.shape, want.shape))
    bad = np.argwhere(got != want)
    if len(bad):
        y, x, c = bad[0]
        raise AssertionError("%s: (%d,%d) channel %d is %d, want %d (%d samples differ)" % (
            label, x, y, c, got[y, x, c], want[y, x, c], len(bad)))


def read_csv(path):
    lines = open(path).read().split("\n")
    head = lines[0].split(",")
    rows = [list(map(float, ln.split(","))) for ln in lines[1:] if ln]
    return head, np.array(rows)


def image_check(label, args, bits, want, want_cv):
    """The check of an image output at path: its depth, then every sample."""
    def check(rc, err, path):
        if rc:
            raise AssertionError("%s: exit %d: %s" % (label, rc, err))
        got, gbits = read_pnm(path)
        want_bits = int(args[1]) if args[0] == "--depth" else bits
        if gbits != want_bits:
            raise AssertionError("%s: %d bits, want %d" % (label, gbits, want_bits))
        check_image(label, got, np.asarray(want))
        if want_cv is not None:
            check_image(label + " (cv2.blur)", got, want_cv)
    return check


def hist_check(name, a, ch, mx):
    """A column per channel (one channel: value,count,cumulative)."""
    def check(rc, err, path):
        head, rows = read_csv(path)
        want_head = ["value", "count", "cumulative"] if ch == 1 else ["value"] + NAMES[ch]
        assert rc == 0 and head == want_head, (name, rc, err, head)
        for c in range(ch):
            if not np.array_equal(rows[:, 1 + c], np.bincount(a[:, :, c].ravel(),
                                                              minlength=mx + 1)):
                raise AssertionError("%s --hist: channel %d differs" % (name, c))
    return check


def sums_check(name, a, ch, axis, opt):
    def check(rc, err, path):
        head, rows = read_csv(path)
        if ch == 1:
            assert head == ["index", "sum", "mean"], head
        else:
            assert head == ["index"] + NAMES[ch] + [n + "_mean" for n in NAMES[ch]], head
        if rc or not np.array_equal(rows[:, 1:1 + ch], a.sum(axis=axis)):
            raise AssertionError("%s %s differs (exit %d %s)" % (name, opt, rc, err))
    return check


def main():
    gpufilt, seed, backend, rng, tmp = oracle_start("layouts.py")
    sizes = [(1, 1), (1, 6), (6, 1), (2, 3), (7, 5), (33, 17), (70, 9)]
    jobs = []  # (args with {out}, output suffix, check)
    for ch, bits in LAYOUTS:
        mx = (1 << bits) - 1
        for w, h in sizes:
            a = rng.integers(0, mx + 1, size=(h, w, ch), dtype=np.int64)
            inp = os.path.join(tmp, "in-%d-%d-%dx%d.pam" % (ch, bits, w, h))
            write_pam(inp, a, bits)
            name = "%dx%d %s" % (w, h, ["", "gray", "gray+alpha", "RGB", "RGBA"][ch] +
                                 " %d-bit" % bits)
            stages = []
            for k in (3, 5):
                for mode in ("replicate", "reflect101", "constant"):
                    v = int(rng.integers(0, mx + 1))
                    border = mode + ("=%d" % v if mode == "constant" else "")
                    stages.append((["--mean", str(k), "--border", border],
                                   box_mean(a, k, mode, v if mode == "constant" else 0),
                                   cv2_mean(a, k, mode, bits)))
            for t in (0, mx - 1, int(rng.integers(0, mx))):
                stages.append((["--threshold", str(t)], np.where(a > t, mx, 0), None))
            for op in ("--transpose", "--transverse", "--rotate 90", "--rotate 180",
                       "--rotate 270", "--flip", "--flop"):
                stages.append((op.split(), orient(a, op), None))
            luma = a[:, :, :1] if ch <= 2 else \
                (77 * a[:, :, 0:1] + 150 * a[:, :, 1:2] + 29 * a[:, :, 2:3]) >> 8
            stages.append((["--gray"], luma, None))
            stages.append((["--gray", "--threshold", "otsu"],
                           np.where(luma > otsu(np.bincount(luma.ravel(), minlength=mx + 1)),
                                    mx, 0), None))
            other = 8 if bits == 16 else 16
            stages.append((["--depth", str(other)],
                           (a * 255 + 32767) // 65535 if bits == 16 else a * 257, None))
            for args, want, want_cv in stages:
                label = "%s %s" % (name, " ".join(args))
                jobs.append(([inp, "-o", "{out}"] + args, ".pam",
                             image_check(label, args, bits, want, want_cv)))
            jobs.append(([inp, "--hist", "{out}"], ".csv", hist_check(name, a, ch, mx)))
            for axis, opt in ((0, "--colsum"), (1, "--rowsum")):
                jobs.append(([inp, opt, "{out}"], ".csv", sums_check(name, a, ch, axis, opt)))

    def one(i):
        args, ext, check = jobs[i]
        path = os.path.join(tmp, "out-%d%s" % (i, ext))
        rc, err = run(gpufilt, [path if x == "{out}" else x for x in args], backend)
        check(rc, err, path)

    run_all(one, len(jobs))
    print("layouts.py: %d checks passed" % len(jobs))


if __name__ == "__main__":
    main()
