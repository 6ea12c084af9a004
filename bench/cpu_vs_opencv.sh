#!/bin/sh
# cpu_vs_opencv.sh [WxH] [REPS] [EXPERIMENT...] - gpufilt's CPU paths against
# OpenCV, stage by stage and layout (8u_C1, 8u_C3, 16u_C1), on random images
# of one size (the bench experiments named, default all),
# in the same run: `gpufilt bench
# --cpu` (median of REPS after a warm-up, each checked against the gold),
# then OpenCV-Python's equivalent calls timed the same way, then a table of
# the two medians and their ratio. Both use every core. Needs a python3 with
# cv2 (numpy); run from the repository root after `make`.
set -eu
size=${1:-5120x2880}
reps=${2:-15}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
. bench/python.sh
py=$(pick_python "cv2")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
./gpufilt bench --cpu "$@" --size "$size" --reps "$reps" --json >"$out"
$py - "$out" "$size" "$reps" <<'PY'
import json, sys, time
import cv2
import numpy as np

bench, size, reps = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
w, h = map(int, size.split("x"))
rng = np.random.default_rng(1)
images = {  # the layouts gpufilt bench times on the CPU, as OpenCV holds them
    "8u_C1": rng.integers(0, 256, (h, w), dtype=np.uint8),
    "8u_C3": rng.integers(0, 256, (h, w, 3), dtype=np.uint8),
    "16u_C1": rng.integers(0, 65536, (h, w), dtype=np.uint16),
}

def median_ms(f):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t) * 1e3)
    return sorted(ts)[reps // 2]

def hist(im):
    levels = 65536 if im.dtype == np.uint16 else 256
    return [cv2.calcHist([im], [c], None, [levels], [0, levels])
            for c in range(1 if im.ndim == 2 else im.shape[2])]

def top(im):
    return 65535 if im.dtype == np.uint16 else 255

REP = cv2.BORDER_REPLICATE

def gauss_k(sigma, im):  # gpufilt's default window: OpenCV's rule, 8 SIGMA on 16 bits
    k = int(((8 if im.dtype == np.uint16 else 6) * sigma + 1.5) // 1) | 1
    return min(k, 127)

def gauss(sigma):
    return lambda im: cv2.GaussianBlur(im, (gauss_k(sigma, im),) * 2, sigma, borderType=REP)

def unsharp(sigma):  # the same work: a blur, then x + (x - g)
    def f(im):
        g = cv2.GaussianBlur(im, (gauss_k(sigma, im),) * 2, sigma, borderType=REP)
        return cv2.addWeighted(im, 2.0, g, -1.0, 0)
    return f

def square(k):
    return np.ones((k, k), np.uint8)

def edges(dx_dy_fn):
    def f(im):
        gx = dx_dy_fn(im, 1, 0)
        gy = dx_dy_fn(im, 0, 1)
        return cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy))
    return f

sobel = edges(lambda im, dx, dy: cv2.Sobel(im, cv2.CV_16S if im.dtype == np.uint8 else cv2.CV_32F,
                                           dx, dy, ksize=3, borderType=REP))
scharr = edges(lambda im, dx, dy: cv2.Scharr(im, cv2.CV_16S if im.dtype == np.uint8 else cv2.CV_32F,
                                             dx, dy, borderType=REP))
kernel5 = np.arange(-12, 13, dtype=np.float32).reshape(5, 5)

def per_channel(f):  # OpenCV's one-channel calls on each channel of a colour image
    return lambda im: f(im) if im.ndim == 2 else cv2.merge([f(c) for c in cv2.split(im)])

def lut(fn):  # cv2.LUT with a 256-entry table made once, outside the timing
    t = np.array([fn(v) for v in range(256)], dtype=np.uint8)
    return lambda im: cv2.LUT(im, t)

def autocontrast(cut):  # calcHist, the ends cut, the stretch as cv2.LUT (OpenCV has no call)
    def f(c):
        h = cv2.calcHist([c], [0], None, [256], [0, 256]).ravel()
        cum, n = np.cumsum(h), c.size
        lo = int(np.searchsorted(cum, n * cut / 100, side="right"))
        hi = int(np.searchsorted(cum, n - n * cut / 100, side="left"))
        scale = 255.0 / (hi - lo) if hi > lo else 1.0
        t = np.clip((np.arange(256) - lo) * scale, 0, 255).astype(np.uint8)
        return cv2.LUT(c, t)
    return per_channel(f)

level_b, level_w = 0.1 * 255, 0.9 * 255

opencv = {
    "gray": lambda im: cv2.cvtColor(im, cv2.COLOR_RGB2GRAY),
    "mean 3": lambda im: cv2.blur(im, (3, 3), borderType=cv2.BORDER_REPLICATE),
    "mean 5": lambda im: cv2.blur(im, (5, 5), borderType=cv2.BORDER_REPLICATE),
    "threshold 128": lambda im: cv2.threshold(im, 128, top(im), cv2.THRESH_BINARY),
    "threshold otsu": lambda im: cv2.threshold(im, 0, top(im), cv2.THRESH_BINARY + cv2.THRESH_OTSU),
    "transpose": lambda im: cv2.transpose(im),
    "rotate 90": lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE),
    "rotate 180": lambda im: cv2.rotate(im, cv2.ROTATE_180),
    "flip": lambda im: cv2.flip(im, 0),
    "flop": lambda im: cv2.flip(im, 1),
    "hist": hist,
    "colsum": lambda im: cv2.reduce(im, 0, cv2.REDUCE_SUM,
                                    dtype=cv2.CV_64F if im.dtype == np.uint16 else cv2.CV_32S),
    "rowsum": lambda im: cv2.reduce(im, 1, cv2.REDUCE_SUM,
                                    dtype=cv2.CV_64F if im.dtype == np.uint16 else cv2.CV_32S),
    "gaussian 1": gauss(1.0),
    "gaussian 2": gauss(2.0),
    "gaussian 2.5": gauss(2.5),
    "unsharp 1,1,0": unsharp(1.0),
    "unsharp 2,1,0": unsharp(2.0),
    "median 3": lambda im: cv2.medianBlur(im, 3),
    "median 5": lambda im: cv2.medianBlur(im, 5),
    "median 7": lambda im: cv2.medianBlur(im, 7),
    "median 15": lambda im: cv2.medianBlur(im, 15),
    "erode 3": lambda im: cv2.erode(im, square(3), borderType=REP),
    "erode 15": lambda im: cv2.erode(im, square(15), borderType=REP),
    "erode 63": lambda im: cv2.erode(im, square(63), borderType=REP),
    "dilate 3": lambda im: cv2.dilate(im, square(3), borderType=REP),
    "dilate 15": lambda im: cv2.dilate(im, square(15), borderType=REP),
    "dilate 63": lambda im: cv2.dilate(im, square(63), borderType=REP),
    "open 3": lambda im: cv2.morphologyEx(im, cv2.MORPH_OPEN, square(3), borderType=REP),
    "open 15": lambda im: cv2.morphologyEx(im, cv2.MORPH_OPEN, square(15), borderType=REP),
    "open 63": lambda im: cv2.morphologyEx(im, cv2.MORPH_OPEN, square(63), borderType=REP),
    "close 3": lambda im: cv2.morphologyEx(im, cv2.MORPH_CLOSE, square(3), borderType=REP),
    "close 15": lambda im: cv2.morphologyEx(im, cv2.MORPH_CLOSE, square(15), borderType=REP),
    "close 63": lambda im: cv2.morphologyEx(im, cv2.MORPH_CLOSE, square(63), borderType=REP),
    "sobel": sobel,
    "scharr": scharr,
    "laplacian": lambda im: cv2.convertScaleAbs(cv2.Laplacian(
        im, cv2.CV_16S if im.dtype == np.uint8 else cv2.CV_32F, ksize=1, borderType=REP)),
    "convolve 5x5": lambda im: cv2.filter2D(im, -1, kernel5, borderType=REP),
    "equalize": per_channel(cv2.equalizeHist),
    "autocontrast 0,0": autocontrast(0),
    "autocontrast 2,2": autocontrast(2),
    "level 10%,90%,1.5": lut(lambda v: int(255 * min(max((v - level_b) / (level_w - level_b), 0.0),
                                                     1.0) ** (1 / 1.5) + 0.5)),
    "gamma 2.2": lut(lambda v: int(255 * (v / 255) ** (1 / 2.2) + 0.5)),
    "negate": lut(lambda v: 255 - v),
    "clahe 2,8x8": per_channel(cv2.createCLAHE(2.0, (8, 8)).apply),
}
print("%s, %s; OpenCV %s with %d threads; medians of %d, ms"
      % (size, bench["device"], cv2.__version__, cv2.getNumThreads(), reps))
print("| stage | layout | gpufilt CPU | OpenCV | gpufilt / OpenCV | check |")
print("|---|---|---|---|---|---|")
worst = {}
for row in bench["rows"]:
    words = row["experiment"].split(" ")
    at = next(i for i, t in enumerate(words) if t == size)
    stage, layout = " ".join(words[:at]), " ".join(words[at + 1:]) or "8u_C1"
    if stage not in opencv or layout not in images:
        continue
    try:
        cv = median_ms(lambda: opencv[stage](images[layout]))
    except cv2.error:  # a layout this OpenCV does not take for the call
        print("| %s | %s | %.3f | - | - | %s |" % (stage, layout, row["ms"], row["check"]))
        continue
    worst[layout] = max(worst.get(layout, 0), row["ms"] / cv)
    print("| %s | %s | %.3f | %.3f | %.2f | %s |"
          % (stage, layout, row["ms"], cv, row["ms"] / cv, row["check"]))
for layout, r in worst.items():
    print("worst ratio, %s: %.2f" % (layout, r))
PY
