#!/bin/sh
# cpu_vs_opencv.sh [WxH] [REPS] - gpufilt's CPU paths against OpenCV, stage
# by stage, on random images of one size, in the same run: `gpufilt bench
# --cpu` (median of REPS after a warm-up, each checked against the gold),
# then OpenCV-Python's equivalent calls timed the same way, then a table of
# the two medians and their ratio. Both use every core. Needs a python3 with
# cv2 (numpy); run from the repository root after `make`.
set -eu
size=${1:-5120x2880}
reps=${2:-15}
. bench/python.sh
py=$(pick_python "cv2")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
./gpufilt bench --cpu --size "$size" --reps "$reps" --json >"$out"
$py - "$out" "$size" "$reps" <<'PY'
import json, sys, time
import cv2
import numpy as np

bench, size, reps = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
w, h = map(int, size.split("x"))
im = np.random.default_rng(1).integers(0, 256, (h, w), dtype=np.uint8)

def median_ms(f):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t) * 1e3)
    return sorted(ts)[reps // 2]

opencv = {
    "mean 3": lambda: cv2.blur(im, (3, 3), borderType=cv2.BORDER_REPLICATE),
    "mean 5": lambda: cv2.blur(im, (5, 5), borderType=cv2.BORDER_REPLICATE),
    "threshold 128": lambda: cv2.threshold(im, 128, 255, cv2.THRESH_BINARY),
    "threshold otsu": lambda: cv2.threshold(im, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU),
    "transpose": lambda: cv2.transpose(im),
    "rotate 90": lambda: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE),
    "rotate 180": lambda: cv2.rotate(im, cv2.ROTATE_180),
    "flip": lambda: cv2.flip(im, 0),
    "flop": lambda: cv2.flip(im, 1),
    "hist": lambda: cv2.calcHist([im], [0], None, [256], [0, 256]),
    "colsum": lambda: cv2.reduce(im, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32S),
    "rowsum": lambda: cv2.reduce(im, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S),
}
print("%s, %s; OpenCV %s with %d threads; medians of %d, ms"
      % (size, bench["device"], cv2.__version__, cv2.getNumThreads(), reps))
print("| stage | gpufilt CPU | OpenCV | gpufilt / OpenCV | check |")
print("|---|---|---|---|---|")
worst = 0
for row in bench["rows"]:
    stage = row["experiment"].rsplit(" ", 1)[0]
    if stage not in opencv:
        continue
    cv = median_ms(opencv[stage])
    worst = max(worst, row["ms"] / cv)
    print("| %s | %.3f | %.3f | %.2f | %s |" % (stage, row["ms"], cv, row["ms"] / cv, row["check"]))
print("worst ratio: %.2f" % worst)
PY
