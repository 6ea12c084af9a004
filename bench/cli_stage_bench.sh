#!/bin/sh
# cli_stage_bench.sh [RUNS] [STAGE...] - each stage as a user runs it: the
# command line `gpufilt big.pam -o out.pam STAGE --backend cpu --timings
# json` on a 5120x2880 random image of each layout (8u_C1, 8u_C3, 16u_C1),
# the stage's own row of the timing report (median of RUNS processes), beside
# OpenCV-Python's equivalent call on the same pixels in one process (median of
# RUNS after a warm-up), in the same run, on every core. The in-process
# `gpufilt bench --cpu` can hide what the command line adds (a first touch of
# the output's pages, a team of threads started cold): this is its check.
# STAGE defaults to "--mean 3" "--mean 5" "--gaussian 2" "--median 3"
# "--erode 15" "--sobel"; "--clahe [CLIP][,WxH]" is also known. Run from the repository root after `make`.
set -eu
runs=${1:-7}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "--mean 3" "--mean 5" "--gaussian 2" "--median 3" "--erode 15" "--sobel"
. bench/python.sh
py=$(pick_python "cv2")
work_dir
$py - "$w" <<'PY'
import sys
import numpy as np
sys.path.insert(0, "tests/cli")
from layouts import write_pam
rng = np.random.default_rng(7)
for name, c, bits in (("8u_C1", 1, 8), ("8u_C3", 3, 8), ("16u_C1", 1, 16)):
    write_pam("%s/%s.pam" % (sys.argv[1], name), rng.integers(0, 1 << bits, (2880, 5120, c)), bits)
PY
echo "5120x2880, $(nproc) cores; medians of $runs, ms"
echo "| stage | layout | gpufilt command line | OpenCV | ratio |"
echo "|---|---|---|---|---|"
for stage; do
	for layout in 8u_C1 8u_C3 16u_C1; do
		ms=$(for i in $(seq "$runs"); do
			./gpufilt "$w/$layout.pam" -o "$w/out.pam" $stage --backend cpu --timings json 2>&1 >/dev/null |
				tail -n 1 | $py -c '
import json, sys
steps = json.loads(sys.stdin.read())["steps"]
print(sum(s["ms"] for s in steps if s.get("variant") == "cpu"))'
		done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }')
		cv=$($py - "$w/$layout.pam" "$runs" $stage <<'PY'
import sys, time
import cv2
import numpy as np
sys.path.insert(0, "tests/cli")
from layouts import read_pnm
a, bits = read_pnm(sys.argv[1])
im = np.ascontiguousarray(a.astype(np.uint16 if bits == 16 else np.uint8).squeeze())
runs, op, arg = int(sys.argv[2]), sys.argv[3], (sys.argv[4] if len(sys.argv) > 4 else "")
REP = cv2.BORDER_REPLICATE
def f():
    if op == "--mean":
        k = int(arg)
        return cv2.blur(im, (k, k), borderType=REP)
    if op == "--gaussian":
        s = float(arg)
        k = min(127, int((8 if bits == 16 else 6) * s + 1.5) | 1)
        return cv2.GaussianBlur(im, (k, k), s, borderType=REP)
    if op == "--median":
        return cv2.medianBlur(im, int(arg))
    if op in ("--erode", "--dilate"):
        k = int(arg)
        return (cv2.erode if op == "--erode" else cv2.dilate)(im, np.ones((k, k), np.uint8),
                                                               borderType=REP)
    if op == "--sobel":
        d = cv2.CV_16S if bits == 8 else cv2.CV_32F
        return cv2.add(cv2.convertScaleAbs(cv2.Sobel(im, d, 1, 0, borderType=REP)),
                       cv2.convertScaleAbs(cv2.Sobel(im, d, 0, 1, borderType=REP)))
    if op == "--clahe":  # [CLIP][,WxH]: each channel, merged
        clip, _, grid = (arg or "2").partition(",")
        gw, gh = map(int, (grid or "8x8").split("x"))
        c = cv2.createCLAHE(clipLimit=float(clip or 2), tileGridSize=(gw, gh))
        return c.apply(im) if im.ndim == 2 else cv2.merge([c.apply(x) for x in cv2.split(im)])
    raise SystemExit("no OpenCV counterpart for " + op)
try:
    f()
except cv2.error:
    print("-")
    raise SystemExit
ts = []
for _ in range(runs):
    t = time.perf_counter()
    f()
    ts.append((time.perf_counter() - t) * 1e3)
print("%.2f" % sorted(ts)[runs // 2])
PY
)
		ratio=$(awk -v a="$ms" -v b="$cv" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }')
		echo "| $stage | $layout | $ms | $cv | $ratio |"
	done
done
