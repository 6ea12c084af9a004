#!/bin/sh
# batch_bench.sh [N [R]] - photo batches: gpufilt against OpenCV-Python with
# one process per core, in the same run, on N (2000) distinct JPEG photos
# 2400x1600 q90, chroma 4:2:0 and 4:4:4 (bench/make_photos.py; Pillow). Each
# job runs R (1) times, OpenCV and gpufilt alternating; gpufilt runs once per
# column of DEVICES each time, the columns alternating (--device ENTRY; by
# default "0 all" on a machine of two GPUs or more, "0" with one, gpufilt's
# default backend without a GPU: bench/python.sh); the last lines of a job
# are each column's median of its R ratios to OpenCV, and to the first
# column. Photos and outputs live in a folder under $BENCH_DIR (default
# $TMPDIR or /tmp): give both contenders the same disk, or a tmpfs such as
# /dev/shm to keep writeback out of the figures.
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
# their modes; BATCH_EXTRA=0 leaves out the cpu and jpeg jobs. Only the
# photo sets some job reads are made. BATCH_LONG=K adds histogram runs over
# the 4:2:0 photos listed K times (--files-from, outputs by {index}), one a
# mode of BATCH_MODES and a column, and BATCH_LONG_PNG=1 the --mean 5 +
# CSV + PNG job over the same list in colour: each one's rate, files done
# each second, and peak RSS (/usr/bin/time -f %M, where it exists).
# Before the jobs, the limits they are judged by: `gpufilt bench jpeg` on
# each set made (GPU 0 and the cores; the cores alone without a GPU).
# BATCH_SETS= BATCH_LONG=K makes the 4:2:0 set, its limits and the long runs
# alone.
# Images/s is files over the whole process's wall clock, start-up included
# (the interpreter's too for OpenCV); "steady" is the second half's files
# over the second half's time, from each file's done_ms. Where the time goes,
# from each batch's --timings json summary (bench/batch_timings.py): the
# bottleneck, the busy shares of the workers and of each GPU's hardware
# decoder, each decoder's share of the files, each step's ms a file (worker
# time), each GPU's decoder waits, the workers' busy and waiting time. Run
# from the repository root after `make` (GPUFILT names another gpufilt);
# needs Pillow and cv2.
# shellcheck disable=SC2086 # $gray, $timer and the device arguments split on purpose
set -eu
n=${1:-2000}
reps=${2:-1}
. bench/python.sh
py=$(pick_python "cv2, PIL")
cores=$(nproc)
gpufilt=${GPUFILT:-./gpufilt}
devices=$(bench_devices)
sets=${BATCH_SETS-p420 p444}
work_dir

# the photos the jobs read, made by one process per core
made='' made_sets=''
for set in p420 p444; do
	want=
	case " $sets " in *" $set "*) want=1 ;; esac
	[ $set = p420 ] && { [ "${BATCH_LONG:-0}" -gt 0 ] || [ "${BATCH_EXTRA:-1}" = 1 ]; } && want=1
	[ -n "$want" ] || continue
	per=$(((n + cores - 1) / cores))
	i=0
	while [ $i -lt "$n" ]; do
		k=$((n - i < per ? n - i : per))
		$py bench/make_photos.py "$w/$set" "$k" 2400 1600 "${set#p}" 90 "$i" &
		i=$((i + k))
	done
	wait
	cat "$w/$set"/* >/dev/null # in the page cache, for every contender
	made="$made${made:+, }$set $(du -sh "$w/$set" | cut -f1)"
	made_sets="$made_sets $set"
done
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | paste -sd, -)
echo "photos: $n x JPEG 2400x1600 q90 (${made:-none}); $cores cores; ${gpus:-no GPU};" \
	"gpufilt columns: $devices"
# the limits the batches are judged by, on these photos: each decoder alone, both at once,
# PNG encoding alone (gpufilt bench jpeg; --cpu, the cores alone, without a GPU)
cpuonly=
[ "$(gpu_count)" -gt 0 ] || cpuonly=--cpu
for set in $made_sets; do
	echo "== limits, $set: gpufilt bench jpeg"
	"$gpufilt" bench jpeg --photos "$w/$set" --count "$n" --reps 1 $cpuonly | grep -v '^copy'
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

# gpufilt_job LABEL COUNT DEVICE ARGS...: a batch of COUNT files (inputs in
# ARGS) on one column, under $timer; its rate, steady rate and where the time
# went (bench/batch_timings.py); the rate in $w/gpufilt_rate
gpufilt_job() {
	glabel=$1 gcount=$2 gdev=$3
	shift 3
	[ "$gdev" = default ] || glabel="$glabel --device $gdev"
	rm -rf "$w/o"
	mkdir -p "$w/o"
	dargs=$(device_args "$gdev")
	t0=$(now)
	$timer "$gpufilt" "$@" $dargs --timings json 2>"$w/t.json" >/dev/null || true
	t1=$(now)
	$py bench/batch_timings.py "$w/t.json" "$glabel" "$gcount" "$(secs "$t0" "$t1")" \
		"$w/gpufilt_rate"
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

# pair CVJOB MODE SET GPUFILT-LABEL GPUFILT-ARGS...: OpenCV's job (MODE
# colour or gray) and gpufilt's on each column, alternating R times, then
# each column's median of its R ratios to OpenCV and to the first column
pair() {
	job=$1 mode=$2 set=$3 label=$4
	shift 4
	for d in $devices; do
		: >"$w/ratios.$(key "$d")"
		: >"$w/rates.$(key "$d")"
	done
	r=0
	while [ $r -lt "$reps" ]; do
		cv_job "$job $mode" "$set" "$job" "$mode"
		for d in $devices; do
			gpufilt_job "$label" "$n" "$d" "$w/$set"/*.jpg "$@"
			cat "$w/gpufilt_rate" >>"$w/rates.$(key "$d")"
			awk -v g="$(cat "$w/gpufilt_rate")" -v c="$(cat "$w/cv_rate")" -v d="$d" \
				-v f="$w/ratios.$(key "$d")" 'BEGIN { r = c > 0 ? g / c : 0
				printf "  gpufilt (%s) / OpenCV: %.2fx\n", d, r; printf "%f\n", r >> f }'
		done
		r=$((r + 1))
	done
	if [ "$reps" -gt 1 ]; then
		for d in $devices; do
			median "gpufilt ($d) / OpenCV" "$w/ratios.$(key "$d")" x
		done
	fi
	columns_ratio "$label" $devices
}

timer=
for set in $sets; do
	for mode in ${BATCH_MODES-colour gray}; do
		gray=
		[ "$mode" = colour ] || gray=--gray
		echo "== $set, $mode: --mean 5 + histogram CSV + PNG out"
		pair mean+hist+png "$mode" "$set" "gpufilt${gray:+ $gray}" $gray --mean 5 \
			--hist "$w/o/{stem}.csv" -o "$w/o/{stem}.png"
		echo "== $set, $mode: histogram CSV only"
		pair hist "$mode" "$set" "gpufilt${gray:+ $gray}" $gray --hist "$w/o/{stem}.csv"
	done
done

# long LABEL ARGS...: gpufilt over $w/long.list on each column, alternating,
# each with its files done each second and peak RSS
long() {
	llabel=$1
	shift
	for d in $devices; do
		: >"$w/rates.$(key "$d")"
		rm -f "$w/rss"
		gpufilt_job "$llabel" "$(wc -l <"$w/long.list")" "$d" --files-from "$w/long.list" "$@"
		cat "$w/gpufilt_rate" >>"$w/rates.$(key "$d")"
		grep -o '"done_ms":[0-9.]*' "$w/t.json" | awk -F: -v rss="$([ -s "$w/rss" ] && cat "$w/rss")" '
			{ s = int($2 / 1000); c[s]++; if (s > m) m = s }
			END { for (i = 0; i <= m; i++) l = l (i ? ", " : "") c[i] + 0
				printf "    peak RSS %s; files done each second: %s\n",
					rss ? sprintf("%.0f MB", rss / 1024) : "not measured", l }'
	done
	columns_ratio "$llabel" $devices
}

if [ "${BATCH_LONG:-0}" -gt 0 ]; then
	k=0
	while [ $k -lt "$BATCH_LONG" ]; do
		ls "$w"/p420/*.jpg
		k=$((k + 1))
	done >"$w/long.list"
	[ -x /usr/bin/time ] && timer="/usr/bin/time -f %M -o $w/rss"
	entries="$(wc -l <"$w/long.list") entries (the photos $BATCH_LONG times)"
	for mode in ${BATCH_MODES-colour gray}; do
		gray=
		[ "$mode" = colour ] || gray=--gray
		echo "== p420, $mode: histogram CSV only, $entries"
		long "gpufilt${gray:+ $gray}" $gray --hist "$w/o/{index}.csv"
	done
	if [ "${BATCH_LONG_PNG:-0}" = 1 ]; then
		echo "== p420, colour: --mean 5 + histogram CSV + PNG out, $entries"
		long gpufilt --mean 5 --hist "$w/o/{index}.csv" -o "$w/o/{index}.png"
	fi
	timer=
fi
[ "${BATCH_EXTRA:-1}" = 1 ] || exit 0
echo "== p420, colour: --mean 5 + histogram CSV + PNG out, --backend cpu"
pair mean+hist+png colour p420 "gpufilt --backend cpu" --mean 5 --hist "$w/o/{stem}.csv" \
	-o "$w/o/{stem}.png" --backend cpu
echo "== p420, colour: --mean 5 + JPEG out (quality 90)"
pair jpeg colour p420 "gpufilt (libjpeg-turbo)" --mean 5 -o "$w/o/{stem}.jpg"
pair jpeg colour p420 "gpufilt --backend cuda (nvJPEG)" --mean 5 -o "$w/o/{stem}.jpg" --backend cuda
