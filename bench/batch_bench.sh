#!/bin/sh
# batch_bench.sh [N] - throughput of `gpufilt --mean 5 --hist` over N (200)
# photos of >= 2 MP: one gpufilt batch, a shell loop calling gpufilt once per
# file, the batch on the CPU backend, and OpenCV-Python with one process per
# core where cv2 is installed. Photos are the samples scaled to 2400x1600
# (Pillow, JPEG quality 90) or, without Pillow, gray PNGs scaled by
# bench/large_photo.py. Run from the repository root after `make`.
set -eu
n=${1:-200}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/photos"
if python3 -c 'import PIL' 2>/dev/null; then
	python3 - "$w/photos" "$n" <<'PY'
import sys, glob
from PIL import Image
out, n = sys.argv[1], int(sys.argv[2])
srcs = sorted(glob.glob("samples/*.png") + glob.glob("samples/*.jpg"))
for i in range(n):
    im = Image.open(srcs[i % len(srcs)]).convert("RGB").resize((2400, 1600), Image.BICUBIC)
    im.save("%s/p%03d.jpg" % (out, i), quality=90)
PY
	kind="JPEG 2400x1600 colour (samples scaled by Pillow)"
else
	i=0
	for s in samples/*.png; do
		./gpufilt "$s" -o "$w/src.pgm" -q
		python3 bench/large_photo.py "$w/src.pgm" 2400 1600 "$w/big.pgm"
		./gpufilt "$w/big.pgm" --mean 3 -o "$w/photos/s$i.png" -q
		i=$((i + 1))
	done
	j=0
	while [ "$(ls "$w/photos" | wc -l)" -lt "$n" ]; do
		for f in "$w"/photos/s*.png; do cp "$f" "$w/photos/c$j-$(basename "$f")"; j=$((j + 1)); done
	done
	ls "$w"/photos/c*.png | tail -n +$((n - i + 1)) | xargs rm -f
	kind="PNG 2400x1600 gray (samples scaled by large_photo.py)"
fi
count=$(ls "$w/photos" | wc -l)
cores=$(nproc)
echo "photos: $count x $kind; $cores cores"
rate() { echo "$1 $2" | awk '{ printf "%.1f images/s (%.2f s)", $1 / $2, $2 }'; }
now() { date +%s.%N; }

t0=$(now)
./gpufilt --mean 5 --hist "$w/h1/{stem}.csv" -o "$w/o1/" "$w"/photos/* -q
t1=$(now)
echo "gpufilt batch (--jobs $cores):       $(rate "$count" "$(echo "$t1 $t0" | awk '{ print $1 - $2 }')")"

t0=$(now)
./gpufilt --mean 5 --hist "$w/h3/{stem}.csv" -o "$w/o3/" "$w"/photos/* -q --backend cpu
t1=$(now)
echo "gpufilt batch, CPU backend:        $(rate "$count" "$(echo "$t1 $t0" | awk '{ print $1 - $2 }')")"

mkdir -p "$w/o2" "$w/h2"
t0=$(now)
for f in "$w"/photos/*; do
	b=$(basename "$f")
	./gpufilt "$f" --mean 5 --hist "$w/h2/${b%.*}.csv" -o "$w/o2/${b%.*}.png" -q
done
t1=$(now)
echo "shell loop, one gpufilt per file:  $(rate "$count" "$(echo "$t1 $t0" | awk '{ print $1 - $2 }')")"
cmp -s "$w/o1/$(ls "$w/o1" | head -1)" "$w/o2/$(ls "$w/o1" | head -1)" && echo "batch and loop outputs: identical bytes"

if python3 -c 'import cv2' 2>/dev/null; then
	t0=$(now)
	python3 - "$w" "$cores" <<'PY'
import glob, os, sys
from multiprocessing import Pool
import cv2
import numpy as np
w, cores = sys.argv[1], int(sys.argv[2])
os.makedirs(w + "/o4", exist_ok=True)
def one(f):
    stem = os.path.splitext(os.path.basename(f))[0]
    im = cv2.imread(f, cv2.IMREAD_GRAYSCALE)
    out = cv2.blur(im, (5, 5))
    hist = cv2.calcHist([out], [0], None, [256], [0, 256]).astype(np.int64).ravel()
    np.savetxt(w + "/o4/" + stem + ".csv", hist, fmt="%d")
    cv2.imwrite(w + "/o4/" + stem + ".png", out)
with Pool(cores) as p:
    p.map(one, sorted(glob.glob(w + "/photos/*")))
PY
	t1=$(now)
	echo "OpenCV-Python, $cores processes:      $(rate "$count" "$(echo "$t1 $t0" | awk '{ print $1 - $2 }')")"
else
	echo "OpenCV-Python: cv2 not installed here, not run"
fi
