#!/bin/sh
# batch_bench.sh [N [R]] - photo batches: gpufilt against OpenCV-Python with
# one process per core, in the same run, on N (2000) distinct JPEG photos
# 2400x1600 q90, chroma 4:2:0 and 4:4:4 (bench/make_photos.py; Pillow). Each
# job runs R (1) times, OpenCV and gpufilt alternating; the last line of a job
# is the median of its R ratios. Photos and outputs live in a folder under
# $BENCH_DIR (default $TMPDIR or /tmp): give both contenders the same disk,
# or a tmpfs such as /dev/shm to keep writeback out of the figures.
# Jobs, each in colour (RGB: cv2.imread COLOR, a histogram per channel) and
# in gray (gpufilt --gray, which takes the JPEG's own luma; cv2.imread
# GRAYSCALE):
#   mean+hist+png  --mean 5, histogram CSV, PNG out
#   hist           histogram CSV only
#   cpu            mean+hist+png with --backend cpu (4:2:0, colour)
#   jpeg           --mean 5, JPEG out (quality 90): libjpeg-turbo (default)
#                  and nvJPEG (--backend cuda) (4:2:0, colour)
# BATCH_SETS (default "p420 p444"; empty for none) picks the chroma
# subsamplings of the first two jobs, BATCH_MODES (default "colour gray")
# their modes; BATCH_EXTRA=0 leaves out the cpu and jpeg jobs. BATCH_LONG=K
# adds a histogram run over the 4:2:0 photos listed K times (--files-from,
# outputs by {index}): its rate, files done each second, and peak RSS
# (/usr/bin/time -f %M, where it exists).
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
# the limits the batches are judged by, on these photos: each decoder alone, both at once,
# PNG encoding alone (gpufilt bench jpeg)
for set in ${BATCH_SETS-p420 p444}; do
	echo "== limits, $set: gpufilt bench jpeg"
	./gpufilt bench jpeg --photos "$w/$set" --count "$n" --reps 1 | grep -v '^copy'
done

# OpenCV-Python: the same jobs, a pool of one process per core
cat >"$w/cv.py" <<'PY'
import os, sys, glob, multiprocessing as mp
import cv2
import numpy as np
job, colour, src, out = sys.argv[1], sys.argv[2] == "colour", sys.argv[3], sys.argv[4]
cv2.setNumThreads(1)
def one(f):
    stem = os.path.splitext(os.path.basename(f))[0]
    im = cv2.imread(f, (cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE) |
                    cv2.IMREAD_IGNORE_ORIENTATION)
    if job in ("mean+hist+png", "jpeg"):
        im = cv2.blur(im, (5, 5), borderType=cv2.BORDER_REPLICATE)
    if job in ("mean+hist+png", "hist"):
        chans = [2, 1, 0] if colour else [0]  # OpenCV holds BGR: red first, as gpufilt's CSV
        hs = [cv2.calcHist([im], [c], None, [256], [0, 256]).astype(np.int64).ravel()
              for c in chans]
        with open(os.path.join(out, stem + ".csv"), "w") as fh:
            fh.write(("value,red,green,blue\n" if colour else "value,count\n") +
                     "".join("%d,%s\n" % (v, ",".join("%d" % h[v] for h in hs))
                             for v in range(256)))
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
	glabel=$1 gset=$2
	shift 2
	rm -rf "$w/o"
	mkdir -p "$w/o"
	t0=$(now)
	./gpufilt "$w/$gset"/*.jpg "$@" --timings json 2>"$w/t.json" >/dev/null || true
	t1=$(now)
	g=$(secs "$t0" "$t1")
	$py - "$w/t.json" "$n" "$g" "$glabel" <<'PY'
import json, sys
path, n, wall, label = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
files, steps, summary, backends, decoders = [], {}, None, {}, {}
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
            if s["step"] == "decode":
                decoders[s.get("variant")] = decoders.get(s.get("variant"), 0) + 1
files.sort()
h = len(files) // 2
steady = (len(files) - h) / ((files[-1] - files[h - 1]) / 1e3) if h and files[-1] > files[h - 1] else 0
rate = n / wall if len(files) == n else 0.0  # 0: files failed
print("  %-28s %7.1f images/s (%.2f s, %d done, %s), steady %.1f/s%s" %
      (label, n / wall, wall, len(files), ",".join("%s %d" % kv for kv in backends.items()), steady,
       "" if rate else "; FAILED: %d of %d files not done" % (n - len(files), n)))
print("    per file: " + ", ".join("%s %.2f" % (k, v / max(1, len(files)))
                                  for k, v in steps.items() if k != "total"))
print("    decoded by: " + ", ".join("%s %d" % kv for kv in sorted(decoders.items())))
open(path + ".rate", "w").write("%f" % rate)
PY
	mv "$w/t.json.rate" "$w/gpufilt_rate"
	rm -rf "$w/o"
}

cv_job() {
	clabel=$1 cset=$2 cjob=$3 mode=$4
	rm -rf "$w/o"
	mkdir -p "$w/o"
	t0=$(now)
	$py "$w/cv.py" "$cjob" "$mode" "$w/$cset" "$w/o"
	t1=$(now)
	rm -rf "$w/o"
	g=$(secs "$t0" "$t1")
	echo "$n $g" | awk -v l="OpenCV $clabel" '{ printf "  %-28s %7.1f images/s (%.2f s)\n", l, $1 / $2, $2 }'
	echo "$n $g" | awk '{ printf "%f", $1 / $2 }' >"$w/cv_rate"
}

ratio() { awk -v g="$(cat "$w/gpufilt_rate")" -v c="$(cat "$w/cv_rate")" \
	'BEGIN { r = g / c; printf "  gpufilt / OpenCV: %.2fx\n", r; printf "%f\n", r >> "'"$w/ratios"'" }'; }

# pair CVJOB MODE SET GPUFILT-LABEL GPUFILT-ARGS...: OpenCV's job (MODE
# colour or gray) and gpufilt's, alternating R times, then the median of the
# R ratios
pair() {
	job=$1 mode=$2 set=$3 label=$4
	shift 4
	: >"$w/ratios"
	r=0
	while [ $r -lt "$reps" ]; do
		cv_job "$job $mode" "$set" "$job" "$mode"
		gpufilt_job "$label" "$set" "$@"
		ratio
		r=$((r + 1))
	done
	[ "$reps" -eq 1 ] || sort -g "$w/ratios" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "  median of %d: %.2fx (%.2f-%.2f)\n", NR, m, v[1], v[NR] }'
}

for set in ${BATCH_SETS-p420 p444}; do
	for mode in ${BATCH_MODES-colour gray}; do
		gray=
		[ $mode = colour ] || gray=--gray
		echo "== $set, $mode: --mean 5 + histogram CSV + PNG out"
		pair mean+hist+png $mode "$set" "gpufilt $gray" $gray --mean 5 \
			--hist "$w/o/{stem}.csv" -o "$w/o/{stem}.png"
		echo "== $set, $mode: histogram CSV only"
		pair hist $mode "$set" "gpufilt $gray" $gray --hist "$w/o/{stem}.csv"
	done
done
if [ "${BATCH_LONG:-0}" -gt 0 ]; then
	k=0
	while [ $k -lt "$BATCH_LONG" ]; do
		ls "$w"/p420/*.jpg
		k=$((k + 1))
	done >"$w/long.list"
	echo "== p420, colour: histogram CSV only, $(wc -l <"$w/long.list") entries (the photos $BATCH_LONG times)"
	rm -rf "$w/o"
	mkdir -p "$w/o"
	timer=
	[ -x /usr/bin/time ] && timer="/usr/bin/time -f %M -o $w/rss"
	t0=$(now)
	$timer ./gpufilt --files-from "$w/long.list" --hist "$w/o/{index}.csv" --timings json \
		2>"$w/t.json" >/dev/null || true
	t1=$(now)
	$py - "$w/t.json" "$(secs "$t0" "$t1")" "$([ -s "$w/rss" ] && cat "$w/rss")" <<'PY'
import json, sys
done = sorted(json.loads(l)["done_ms"] for l in open(sys.argv[1]) if l.startswith('{"input"') and '"steps"' in l)
wall, rss = float(sys.argv[2]), sys.argv[3]
h = len(done) // 2
per_s = [0] * (int(done[-1] // 1000) + 1)
for t in done:
    per_s[int(t // 1000)] += 1
print("  %d done, %.1f images/s (%.2f s), steady %.1f/s; peak RSS %s" %
      (len(done), len(done) / wall, wall, (len(done) - h) / ((done[-1] - done[h - 1]) / 1e3),
       "%.0f MB" % (int(rss) / 1024) if rss else "not measured"))
print("  files done each second: " + ", ".join(str(c) for c in per_s))
PY
	rm -rf "$w/o"
fi
[ "${BATCH_EXTRA:-1}" = 1 ] || exit 0
echo "== p420, colour: --mean 5 + histogram CSV + PNG out, --backend cpu"
pair mean+hist+png colour p420 "gpufilt --backend cpu" --mean 5 --hist "$w/o/{stem}.csv" \
	-o "$w/o/{stem}.png" --backend cpu
echo "== p420, colour: --mean 5 + JPEG out (quality 90)"
pair jpeg colour p420 "gpufilt (libjpeg-turbo)" --mean 5 -o "$w/o/{stem}.jpg"
pair jpeg colour p420 "gpufilt --backend cuda (nvJPEG)" --mean 5 -o "$w/o/{stem}.jpg" --backend cuda
