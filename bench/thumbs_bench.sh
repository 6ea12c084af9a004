#!/bin/sh
# thumbs_bench.sh [N [R]] - thumbnail batches: N (2000) distinct JPEG photos
# 2400x1600 q90 4:2:0 (bench/make_photos.py) to JPEG thumbnails that fit in
# 320x320 at quality 85, in the same run, by:
#   gpufilt            --resize 320x320 --quality 85 (Pillow's LANCZOS bytes
#                      of the whole decode), its default backend
#   gpufilt --draft    the same with shrink-on-load (Pillow's draft bytes)
#   OpenCV-Python      imread, resize INTER_AREA, imwrite q85; a process per core
#   Pillow thumbnail   Image.thumbnail((320, 320)) (its own draft, reducing_gap
#                      2.0), save q85; a process per core
#   Pillow exact       Image.resize of the whole decode, LANCZOS; a process per core
#   vipsthumbnail      libvips' thumbnail (shrink-on-load), -s 320x320, Q=85, its
#                      own threads, one process
# Images/s is files over the whole process's wall clock, start-up included;
# the median of R (1) runs each. Then where gpufilt's time goes: each step's
# mean ms per file from --timings json (worker time). Run from the
# repository root after `make`; needs Pillow, cv2 and vipsthumbnail
# (libvips-tools).
set -eu
n=${1:-2000}
reps=${2:-1}
. bench/python.sh
py=$(pick_python "cv2, PIL")
cores=$(nproc)
gpufilt=${GPUFILT:-./gpufilt}
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
rate() { # rate NAME COMMAND...: images/s, median of reps runs
	name=$1
	shift
	rates=""
	r=0
	while [ $r -lt "$reps" ]; do
		rm -rf "$w/t" && mkdir "$w/t"
		t0=$($py -c 'import time; print(time.time())')
		"$@" >/dev/null 2>&1
		t1=$($py -c 'import time; print(time.time())')
		rates="$rates $($py -c "print($n / ($t1 - $t0))")"
		r=$((r + 1))
	done
	echo "$name $($py -c "import statistics, sys; print('%.1f' % statistics.median(map(float, sys.argv[1:])))" $rates) images/s"
}
echo "$n photos 2400x1600 q90 4:2:0 -> fit 320x320 q85; $cores cores; median of $reps"
rate "gpufilt" "$gpufilt" --files-from "$w/list.txt" --resize 320x320 --quality 85 -o "$w/t/{stem}.jpg" -q
rate "gpufilt --draft" "$gpufilt" --files-from "$w/list.txt" --draft --resize 320x320 --quality 85 -o "$w/t/{stem}.jpg" -q
rate "OpenCV-Python" $py "$w/peer.py" cv2 "$w/t" "$w/list.txt"
rate "Pillow thumbnail" $py "$w/peer.py" thumbnail "$w/t" "$w/list.txt"
rate "Pillow exact" $py "$w/peer.py" exact "$w/t" "$w/list.txt"
if command -v vipsthumbnail >/dev/null; then
	rate "vipsthumbnail" sh -c "xargs vipsthumbnail -s 320x320 -o '$w/t/%s.jpg[Q=85]' <'$w/list.txt'"
fi
# where gpufilt's time goes
for d in "" --draft; do
	rm -rf "$w/t" && mkdir "$w/t"
	"$gpufilt" --files-from "$w/list.txt" $d --resize 320x320 --quality 85 -o "$w/t/{stem}.jpg" \
		--timings json 2>"$w/j.txt" >/dev/null || true
	$py - "$w/j.txt" "gpufilt $d" <<'PY'
import json, sys, collections
tot, n = collections.Counter(), 0
for line in open(sys.argv[1]):
    if not line.startswith('{"input"'):
        continue
    n += 1
    for s in json.loads(line)["steps"]:
        tot[s["step"].split(" ")[0]] += s["ms"]
print(sys.argv[2].strip() + ":", ", ".join(f"{k} {v / n:.2f}" for k, v in tot.items() if k != "total"), "ms a file")
PY
done
