#!/bin/sh
# batch_bench.sh [N [R]] - photo batches: gpufilt against OpenCV-Python with
# one process per core, in the same run, on N (2000) distinct JPEG photos
# 2400x1600 q90, chroma 4:2:0 and 4:4:4 (bench/make_photos.py; Pillow). Each
# job runs R (1) times, OpenCV and gpufilt alternating; the last line of a job
# is the median of its R ratios. Photos and outputs live in a folder under
# $BENCH_DIR (default $TMPDIR or /tmp): give both contenders the same disk,
# or a tmpfs such as /dev/shm to keep writeback out of the figures.
# Jobs:
#   mean+hist+png  --mean 5, histogram CSV, PNG out
#   hist           histogram CSV only
#   cpu            mean+hist+png with --backend cpu
#   jpeg           --mean 5, JPEG out (quality 90): libjpeg-turbo (default)
#                  and nvJPEG (--backend cuda)
# Images/s is files over the whole process's wall clock, start-up included
# (the interpreter's too for OpenCV); "steady" is the second half's files
# over the second half's time, from each file's done_ms. Where the time goes:
# each step's mean ms per file from --timings json (worker time, summed over
# workers). Run from the repository root after `make`; needs Pillow and cv2.
set -eu
n=${1:-2000}
reps=${2:-1}
. bench/python.sh
py=$(pick_python "cv2, PIL")
cores=$(nproc)
work_dir

# the photos, made by one process per core
for sub in 420 444; do
	per=$(((n + cores - 1) / cores))
	i=0
	while [ $i -lt "$n" ]; do
		k=$((n - i < per ? n - i : per))
		$py bench/make_photos.py "$w/p$sub" "$k" 2400 1600 "$sub" 90 "$i" &
		i=$((i + k))
	done
	wait
done
echo "photos: $n x JPEG 2400x1600 q90 (4:2:0 and 4:4:4), $(du -sh "$w/p420" | cut -f1) and" \
	"$(du -sh "$w/p444" | cut -f1); $cores cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo no GPU)"
cat "$w"/p420/* "$w"/p444/* >/dev/null # both sets in the page cache, for every contender

# OpenCV-Python: the same jobs, a pool of one process per core
cat >"$w/cv.py" <<'PY'
import os, sys, glob, multiprocessing as mp
import cv2
import numpy as np
job, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
cv2.setNumThreads(1)
def one(f):
    stem = os.path.splitext(os.path.basename(f))[0]
    im = cv2.imread(f, cv2.IMREAD_GRAYSCALE | cv2.IMREAD_IGNORE_ORIENTATION)
    if job in ("mean+hist+png", "jpeg"):
        im = cv2.blur(im, (5, 5), borderType=cv2.BORDER_REPLICATE)
    if job in ("mean+hist+png", "hist"):
        h = cv2.calcHist([im], [0], None, [256], [0, 256]).astype(np.int64).ravel()
        with open(os.path.join(out, stem + ".csv"), "w") as fh:
            fh.write("value,count\n" + "".join("%d,%d\n" % (v, c) for v, c in enumerate(h)))
    if job == "mean+hist+png":
        cv2.imwrite(os.path.join(out, stem + ".png"), im)
    if job == "jpeg":
        cv2.imwrite(os.path.join(out, stem + ".jpg"), im, [cv2.IMWRITE_JPEG_QUALITY, 90])
if __name__ == "__main__":
    with mp.Pool(os.cpu_count()) as p:
        p.map(one, sorted(glob.glob(os.path.join(src, "*.jpg"))), chunksize=8)
PY

now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }

# gpufilt LABEL SET ARGS...: runs a batch, prints its rate, steady rate and steps
gpufilt_job() {
	label=$1 set=$2
	shift 2
	rm -rf "$w/o"
	mkdir -p "$w/o"
	t0=$(now)
	./gpufilt "$w/$set"/*.jpg "$@" --timings json 2>"$w/t.json" >/dev/null || true
	t1=$(now)
	g=$(secs "$t0" "$t1")
	$py - "$w/t.json" "$n" "$g" "$label" <<'PY'
import json, sys
path, n, wall, label = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
files, steps, summary, backends = [], {}, None, {}
for line in open(path):
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    if "summary" in d:
        summary = d["summary"]
    elif "steps" in d:
        files.append(d.get("done_ms", 0))
        backends[d["backend"]] = backends.get(d["backend"], 0) + 1
        for s in d["steps"]:
            k = s["step"] + ("/" + s["variant"] if s.get("variant") else "")
            steps[k] = steps.get(k, 0) + s["ms"]
files.sort()
h = len(files) // 2
steady = (len(files) - h) / ((files[-1] - files[h - 1]) / 1e3) if h and files[-1] > files[h - 1] else 0
print("  %-28s %7.1f images/s (%.2f s, %d done, %s), steady %.1f/s" %
      (label, n / wall, wall, len(files), ",".join("%s %d" % kv for kv in backends.items()), steady))
print("    per file: " + ", ".join("%s %.2f" % (k, v / max(1, len(files)))
                                  for k, v in steps.items() if k != "total"))
open(path + ".rate", "w").write("%f" % (n / wall))
PY
	mv "$w/t.json.rate" "$w/gpufilt_rate"
	rm -rf "$w/o"
}

cv_job() {
	label=$1 set=$2 job=$3
	rm -rf "$w/o"
	mkdir -p "$w/o"
	t0=$(now)
	$py "$w/cv.py" "$job" "$w/$set" "$w/o"
	t1=$(now)
	rm -rf "$w/o"
	g=$(secs "$t0" "$t1")
	echo "$n $g $label" | awk '{ printf "  %-28s %7.1f images/s (%.2f s)\n", "OpenCV " $3, $1 / $2, $2 }'
	echo "$n $g" | awk '{ printf "%f", $1 / $2 }' >"$w/cv_rate"
}

ratio() { awk -v g="$(cat "$w/gpufilt_rate")" -v c="$(cat "$w/cv_rate")" \
	'BEGIN { r = g / c; printf "  gpufilt / OpenCV: %.2fx\n", r; printf "%f\n", r >> "'"$w/ratios"'" }'; }

# pair CVJOB SET GPUFILT-LABEL GPUFILT-ARGS...: OpenCV's job and gpufilt's,
# alternating R times, then the median of the R ratios
pair() {
	job=$1 set=$2 label=$3
	shift 3
	: >"$w/ratios"
	r=0
	while [ $r -lt "$reps" ]; do
		cv_job "$job" "$set" "$job"
		gpufilt_job "$label" "$set" "$@"
		ratio
		r=$((r + 1))
	done
	[ "$reps" -eq 1 ] || sort -g "$w/ratios" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "  median of %d: %.2fx (%.2f-%.2f)\n", NR, m, v[1], v[NR] }'
}

for set in p420 p444; do
	echo "== $set: --mean 5 + histogram CSV + PNG out"
	pair mean+hist+png "$set" gpufilt --mean 5 --hist "$w/o/{stem}.csv" -o "$w/o/{stem}.png"
	echo "== $set: histogram CSV only"
	pair hist "$set" gpufilt --hist "$w/o/{stem}.csv"
done
echo "== p420: --mean 5 + histogram CSV + PNG out, --backend cpu"
pair mean+hist+png p420 "gpufilt --backend cpu" --mean 5 --hist "$w/o/{stem}.csv" \
	-o "$w/o/{stem}.png" --backend cpu
echo "== p420: --mean 5 + JPEG out (quality 90)"
pair jpeg p420 "gpufilt (libjpeg-turbo)" --mean 5 -o "$w/o/{stem}.jpg"
pair jpeg p420 "gpufilt --backend cuda (nvJPEG)" --mean 5 -o "$w/o/{stem}.jpg" --backend cuda
