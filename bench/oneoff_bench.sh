#!/bin/sh
# oneoff_bench.sh [RUNS] - one-off commands: `gpufilt IN -o OUT.png --mean 5`
# on a 5120x2880 (14.7 MP) PNG, gray and RGB, and on a 2400x1600 JPEG colour
# photo, in colour and with --gray first, with default options, and --shared
# on the gray PNG where a GPU is. For each: the process's wall clock (median
# of RUNS, start and exit included), gpufilt's own decode + encode (medians
# from --timings json) and the table's total, beside OpenCV-Python doing the
# same in one process (cv2.imread GRAYSCALE or COLOR, cv2.blur 5x5,
# cv2.imwrite PNG; the interpreter's start not counted), in the same run. Run
# from the repository root after `make`.
set -eu
runs=${1:-11}
. bench/python.sh
py=$(pick_python "cv2")
work_dir
./gpufilt samples/astronaut.png -o "$w/astro.ppm" -q
./gpufilt samples/astronaut.png --gray -o "$w/astro.pgm" -q
$py bench/large_photo.py "$w/astro.pgm" 5120 2880 "$w/big.pgm"
$py bench/large_photo.py "$w/astro.ppm" 5120 2880 "$w/big.ppm"
./gpufilt "$w/big.pgm" --mean 5 --mean 5 -o "$w/big.png" -q --backend cpu
./gpufilt "$w/big.ppm" --mean 5 --mean 5 -o "$w/bigrgb.png" -q --backend cpu
$py bench/make_photos.py "$w/photo" 1 2400 1600 420 90
cp "$w/photo/p00000.jpg" "$w/photo.jpg"

gpu=0
./gpufilt samples/text.png -o "$w/g.png" --backend cuda -q 2>/dev/null && gpu=1

# wall: median of $runs runs of a command, in ms
wall() {
	for i in $(seq "$runs"); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000))
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

# gpufilt's decode + encode and total, medians from its JSON timings
codec() {
	for i in $(seq "$runs"); do "$@" --timings json 2>&1 >/dev/null | tail -n 1; done |
		$py -c '
import json, statistics, sys
rows = [{s["step"]: s["ms"] for s in json.loads(l)["steps"]} for l in sys.stdin]
med = lambda k: statistics.median(r.get(k, 0) for r in rows)
print("%.1f %.1f" % (med("decode") + med("encode"), med("total")))'
}

opencv() { # opencv IN gray|colour
	$py - "$1" "$w/cv.png" "$runs" "$2" <<'PY'
import sys, time
import cv2
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
mode = cv2.IMREAD_GRAYSCALE if sys.argv[4] == "gray" else cv2.IMREAD_COLOR
ts = []
for _ in range(n + 1):
    t = time.perf_counter()
    im = cv2.imread(src, mode)
    cv2.imwrite(out, cv2.blur(im, (5, 5)))
    ts.append((time.perf_counter() - t) * 1e3)
print("%.1f" % sorted(ts[1:])[n // 2])
PY
}

echo "one-off: --mean 5 to PNG, medians of $runs; $(nproc) cores; GPU: $gpu"
echo "| input | options | gpufilt wall ms | decode+encode ms | table total ms | OpenCV ms | wall / OpenCV | wall / (decode+encode) |"
echo "|---|---|---|---|---|---|---|---|"
for job in big.png:gray bigrgb.png:colour photo.jpg:colour photo.jpg:gray; do
	input=${job%:*} mode=${job#*:}
	cv=$(opencv "$w/$input" $mode)
	gray=
	[ $mode = colour ] || [ $input = big.png ] || gray=--gray
	for opts in "$gray" "--shared"; do
		[ "$opts" != --shared ] || { [ $gpu = 1 ] && [ $input = big.png ]; } || continue
		wl=$(wall ./gpufilt "$w/$input" -o "$w/out.png" $opts --mean 5 -q)
		set -- $(codec ./gpufilt "$w/$input" -o "$w/out.png" $opts --mean 5)
		echo "$input ${opts:--} $wl $1 $2 $cv" | awk '{ printf "| %s | %s | %s | %s | %s | %s | %.2f | %.2f |\n",
			$1, $2, $3, $4, $5, $6, $3 / $6, $3 / $4 }'
	done
done
for input in big.png bigrgb.png photo.jpg; do
	./gpufilt "$w/$input" -o "$w/out.png" --mean 5 2>&1 | sed 's/^/    /'
done
[ $gpu = 0 ] || ./gpufilt "$w/big.png" -o "$w/out.png" --mean 5 --shared 2>&1 | sed 's/^/    /'
# what a process costs around its table: start and exit, without CUDA
echo "    gpufilt --version: $(wall ./gpufilt --version) ms"
