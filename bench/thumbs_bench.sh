#!/bin/sh
# thumbs_bench.sh [N [R]] - thumbnail batches: N (2000) distinct JPEG photos
# 2400x1600 q90 4:2:0 (bench/make_photos.py) to JPEG thumbnails that fit in
# 320x320 at quality 85, in the same run, by:
#   gpufilt            --resize 320x320 --quality 85 (Pillow's LANCZOS bytes
#                      of the whole decode), once per column of DEVICES
#                      (--device ENTRY; by default "0 all" on a machine of two
#                      GPUs or more, "0" with one, gpufilt's default backend
#                      without a GPU: bench/python.sh), the columns
#                      alternating in each of the R repeats
#   gpufilt --draft    the same with shrink-on-load (Pillow's draft bytes)
#   torchvision GPU    bench/torch_thumbs.py: decode_jpeg on cuda:0 in batches
#                      of 256, resize(antialias=True), encode_jpeg on the GPU,
#                      one process; its whole rate and its steady rate (after
#                      the first batch); skipped, saying why, without torch,
#                      torchvision 0.19 or later, or CUDA
#   OpenCV-Python      imread, resize INTER_AREA, imwrite q85; a process per core
#   Pillow thumbnail   Image.thumbnail((320, 320)) (its own draft, reducing_gap
#                      2.0), save q85; a process per core
#   Pillow exact       Image.resize of the whole decode, LANCZOS; a process per core
#   vipsthumbnail      libvips' thumbnail (shrink-on-load), -s 320x320, Q=85, its
#                      own threads, one process
# THUMBS_LONG=K adds gpufilt's rows (both, every column) and torchvision's
# over the photos listed K times (--files-from; outputs by {index}).
# Images/s is files over the whole process's wall clock, start-up included;
# each gpufilt run prints its row, its steady rate (the second half's files
# over the second half's time) and where its time went, from its --timings
# json summary (bench/batch_timings.py: the bottleneck, the busy shares of
# the workers and each GPU's hardware decoder, each decoder's share of the
# files, each step's ms a file); then, with R > 1, each row's median of R;
# then each column's ratio to the first. Run from the repository root after
# `make` (GPUFILT names another gpufilt); needs Pillow and cv2, and
# vipsthumbnail (libvips-tools) for its row.
# shellcheck disable=SC2086 # $py, $tpy and the device arguments split on purpose
set -eu
n=${1:-2000}
reps=${2:-1}
. bench/python.sh
py=$(pick_python "cv2, PIL")
tpy=$(pick_python "torch, torchvision")
cores=$(nproc)
gpufilt=${GPUFILT:-./gpufilt}
devices=$(bench_devices)
work_dir
per=$(((n + cores - 1) / cores))
i=0
while [ $i -lt "$n" ]; do
	k=$per
	[ $((i + k)) -gt "$n" ] && k=$((n - i))
	$py bench/make_photos.py "$w/p" "$k" 2400 1600 420 90 "$i" &
	i=$((i + k))
done
wait
ls "$w"/p/*.jpg >"$w/list.txt"
cat >"$w/peer.py" <<'PY'
import sys
from multiprocessing import Pool
how, out, files = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split()
def one(f):
    name = out + "/" + f.rsplit("/", 1)[1]
    if how == "cv2":
        import cv2
        im = cv2.imread(f, cv2.IMREAD_COLOR)
        h, w = im.shape[:2]
        s = min(320 / w, 320 / h)
        im = cv2.resize(im, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
        cv2.imwrite(name, im, [cv2.IMWRITE_JPEG_QUALITY, 85])
    else:
        from PIL import Image
        im = Image.open(f)
        if how == "thumbnail":
            im.thumbnail((320, 320))
        else:
            w, h = im.size
            s = min(320 / w, 320 / h)
            im = im.resize((max(1, round(w * s)), max(1, round(h * s))), Image.LANCZOS)
        im.save(name, quality=85)
with Pool() as p:
    p.map(one, files, chunksize=8)
PY
# rate NAME COMMAND...: images/s, median of reps runs
rate() {
	name=$1
	shift
	: >"$w/rates"
	r=0
	while [ $r -lt "$reps" ]; do
		rm -rf "$w/t" && mkdir "$w/t"
		t0=$(now)
		"$@" >/dev/null 2>&1
		t1=$(now)
		echo "$n $(secs "$t0" "$t1")" | awk '{ print $1 / $2 }' >>"$w/rates"
		r=$((r + 1))
	done
	sort -g "$w/rates" | awk -v l="$name" '{ v[NR] = $1 } END {
		printf "%s %.1f images/s\n", l, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# gpufilt_rows LABEL LIST ARGS...: gpufilt over LIST on every column, the
# columns alternating in each of the R repeats: each run's row and where its
# time went, then each column's median and ratio to the first column
gpufilt_rows() {
	glabel=$1 glist=$2
	shift 2
	count=$(wc -l <"$glist")
	for d in $devices; do
		: >"$w/rates.$(key "$d")"
	done
	r=0
	while [ $r -lt "$reps" ]; do
		for d in $devices; do
			label=$glabel
			[ "$d" = default ] || label="$glabel --device $d"
			dargs=$(device_args "$d")
			rm -rf "$w/t" && mkdir "$w/t"
			t0=$(now)
			"$gpufilt" --files-from "$glist" "$@" --resize 320x320 --quality 85 \
				-o "$w/t/{index}.jpg" $dargs --timings json 2>"$w/j.txt" >/dev/null || true
			t1=$(now)
			$py bench/batch_timings.py "$w/j.txt" "$label" "$count" "$(secs "$t0" "$t1")" "$w/rate"
			cat "$w/rate" >>"$w/rates.$(key "$d")"
		done
		r=$((r + 1))
	done
	if [ "$reps" -gt 1 ]; then
		for d in $devices; do
			median "$glabel ($d)" "$w/rates.$(key "$d")" " images/s"
		done
	fi
	columns_ratio "$glabel" $devices
}

# torch_rows LIST: torchvision's GPU pipeline over LIST, R times: whole and
# steady images/s; or why it cannot run here
torch_rows() {
	if ! why=$($tpy bench/torch_thumbs.py --check 2>&1); then
		echo "  torchvision GPU: skipped: $why"
		return
	fi
	count=$(wc -l <"$1")
	: >"$w/rates"
	: >"$w/steady"
	r=0
	while [ $r -lt "$reps" ]; do
		rm -rf "$w/t" && mkdir "$w/t"
		ok=1
		t0=$(now)
		if ! steady=$($tpy bench/torch_thumbs.py "$w/t" "$1" 2>"$w/torch.err"); then
			ok=''
			steady="FAILED: $(tail -1 "$w/torch.err")"
		fi
		t1=$(now)
		echo "$count $(secs "$t0" "$t1")" | awk -v s="$steady" -v f="${ok:+$w/rates}" '{
			printf "  %-28s %7.1f images/s (%.2f s), %s\n", "torchvision GPU (cuda:0)", $1 / $2, $2, s
			if (f) print $1 / $2 >> f }'
		echo "$steady" | awk '$1 == "steady" && $2 + 0 > 0 { print $2 }' >>"$w/steady"
		r=$((r + 1))
	done
	if [ "$reps" -gt 1 ] && [ -s "$w/rates" ]; then
		median "torchvision GPU" "$w/rates" " images/s"
		if [ -s "$w/steady" ]; then
			median "torchvision GPU, steady" "$w/steady" " images/s"
		fi
	fi
}

echo "$n photos 2400x1600 q90 4:2:0 -> fit 320x320 q85; $cores cores;" \
	"$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | paste -sd, - | grep . || echo no GPU);" \
	"gpufilt columns: $devices; median of $reps"
gpufilt_rows gpufilt "$w/list.txt"
gpufilt_rows "gpufilt --draft" "$w/list.txt" --draft
torch_rows "$w/list.txt"
rate "OpenCV-Python" $py "$w/peer.py" cv2 "$w/t" "$w/list.txt"
rate "Pillow thumbnail" $py "$w/peer.py" thumbnail "$w/t" "$w/list.txt"
rate "Pillow exact" $py "$w/peer.py" exact "$w/t" "$w/list.txt"
if command -v vipsthumbnail >/dev/null; then
	rate "vipsthumbnail" sh -c "xargs vipsthumbnail -s 320x320 -o '$w/t/%s.jpg[Q=85]' <'$w/list.txt'"
fi
if [ "${THUMBS_LONG:-0}" -gt 0 ]; then
	k=0
	while [ $k -lt "$THUMBS_LONG" ]; do
		cat "$w/list.txt"
		k=$((k + 1))
	done >"$w/long.list"
	echo "== $(wc -l <"$w/long.list") entries (the photos $THUMBS_LONG times)"
	gpufilt_rows gpufilt "$w/long.list"
	gpufilt_rows "gpufilt --draft" "$w/long.list" --draft
	torch_rows "$w/long.list"
fi
