#!/usr/bin/env bats
# Colour and 16-bit images: every layout (gray, gray+alpha, RGB, RGBA; 8 and
# 16 bits) through every stage, decoder and encoder, against independent
# oracles: numpy and OpenCV (tests/cli/layouts.py), libpng through netpbm's
# pngtopam, OpenCV's and netpbm's PNM readers, djpeg; and the clear errors
# for what a stage or a format cannot take.

load helper

# A random PAM image: rand_pam W H CHANNELS BITS OUT
rand_pam() {
	python3 - "$@" "$RANDOM" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[0] and __import__("os").environ["ROOT"] + "/tests/cli")
from layouts import write_pam
w, h, c, bits, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = np.random.default_rng(int(sys.argv[6]))
write_pam(out, rng.integers(0, 1 << bits, size=(h, w, c)), bits)
PY
}

@test "every layout through every stage equals numpy (and cv2.blur, and exact Otsu)" {
	run python3 "$ROOT/tests/cli/layouts.py" "$GPUFILT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}

@test "a PNG of every colour type, depth, interlace and tRNS decodes to its layout, as libpng says" {
	python3 "$ROOT/tests/data/make_pngs.py" pngs "$RANDOM" >/dev/null
	n=0
	for f in pngs/*.png; do
		"$GPUFILT" "$f" -o got.pam -q
		cmp got.pam "${f%.png}.pam" || { echo "differs from the rule: $f"; false; }
		pngtopam -alphapam "$f" >lib.pam
		# libpng through OpenCV (BGR order; gray+alpha as BGRA; no gray tRNS) and,
		# for gray tRNS, through netpbm's pngtopam (which misses RGB's tRNS)
		python3 - "$f" <<'PY' || { echo "differs from libpng: $f"; false; }
import sys
sys.path.insert(0, __import__("os").environ["ROOT"] + "/tests/cli")
import cv2
import numpy as np
from layouts import read_pnm
got, bits = read_pnm("got.pam")
cv = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED).astype(np.int64)
cv = cv.reshape(cv.shape[0], cv.shape[1], -1)
if cv.shape[2] >= 3:
    cv = np.concatenate([cv[:, :, 2::-1], cv[:, :, 3:]], axis=2)
if got.shape[2] == 2 and cv.shape[2] == 4:  # gray+alpha
    assert (cv[:, :, 0] == cv[:, :, 1]).all() and (cv[:, :, 1] == cv[:, :, 2]).all()
    cv = cv[:, :, (0, 3)]
if got.shape[2] == 2 and cv.shape[2] == 1:  # gray with a tRNS key: alpha from pngtopam
    lib, _ = read_pnm("lib.pam")
    m = lib[:, :, 1].max()
    cv = np.concatenate([cv, np.where(lib[:, :, 1:2] == 0, 0, (1 << bits) - 1)], axis=2)
assert got.shape == cv.shape and (got == cv).all(), (got.shape, cv.shape)
PY
		n=$((n + 1))
	done
	[ "$n" -ge 100 ]
}

@test "every layout round-trips through PNG, PAM and PNM, and other decoders read what gpufilt wrote" {
	for layout in "1 8" "2 8" "3 8" "4 8" "1 16" "2 16" "3 16" "4 16"; do
		set -- $layout
		rand_pam 37 23 $1 $2 in.pam
		"$GPUFILT" in.pam -o out.png -q
		"$GPUFILT" out.png -o back.pam -q
		cmp in.pam back.pam || { echo "PNG round trip: $layout"; false; }
		"$GPUFILT" in.pam -o out.pam -q
		cmp in.pam out.pam
		pamfile out.pam | grep -q "37 by 23"
		# libpng reads gpufilt's PNG: the same samples (alpha added when none)
		pngtopam -alphapam out.png >lib.pam
		python3 - $1 <<'PY'
import sys
sys.path.insert(0, __import__("os").environ["ROOT"] + "/tests/cli")
from layouts import read_pnm
a, _ = read_pnm("in.pam")
d = open("lib.pam", "rb").read().split(b"ENDHDR\n", 1)
import numpy as np
lib = np.frombuffer(d[1], dtype=">u2" if b"65535" in d[0] else "u1").reshape(23, 37, -1)
assert (lib[:, :, :a.shape[2]] == a).all()
PY
		if [ $1 = 1 ] || [ $1 = 3 ]; then # PGM and PPM, read by OpenCV
			ext=$([ $1 = 1 ] && echo pgm || echo ppm)
			"$GPUFILT" in.pam -o out.$ext -q
			python3 - $ext <<'PY'
import sys
sys.path.insert(0, __import__("os").environ["ROOT"] + "/tests/cli")
import cv2
import numpy as np
from layouts import read_pnm
a, _ = read_pnm("in.pam")
cv = cv2.imread("out." + sys.argv[1], cv2.IMREAD_UNCHANGED)
cv = cv.reshape(cv.shape[0], cv.shape[1], -1)[:, :, ::-1]  # BGR
assert (cv.astype(np.int64) == a).all()
PY
		fi
	done
}

@test "JPEG output: 8-bit gray and RGB, read back by djpeg close to the image; other layouts refused" {
	"$GPUFILT" "$SAMPLES/coffee.png" -o c.jpg --quality 95 -q
	djpeg -pnm c.jpg >c.ppm
	head -c 2 c.ppm | grep -q P6
	"$GPUFILT" "$SAMPLES/coffee.png" -o c.pam -q
	python3 - <<'PY'
import sys
sys.path.insert(0, __import__("os").environ["ROOT"] + "/tests/cli")
from layouts import read_pnm
a, _ = read_pnm("c.pam")
b, _ = read_pnm("c.ppm")
err = abs(a - b).mean()
print("mean error", err)
assert a.shape == b.shape and err < 3
PY
	"$GPUFILT" "$SAMPLES/coffee.png" -o g.jpg --gray -q
	[ "$(djpeg -pnm g.jpg | head -c 2)" = P5 ]
	rand_pam 9 9 1 16 in16.pam
	run "$GPUFILT" in16.pam -o x.jpg
	[ "$status" -eq 64 ]
	[[ "$output" == "gpufilt: in16.pam: JPEG holds 8-bit samples, not a gray 16-bit image: put --depth 8"* ]]
	"$GPUFILT" in16.pam --depth 8 -o x.jpg -q
	rand_pam 9 9 4 8 rgba.pam
	run "$GPUFILT" rgba.pam -o x.jpg
	[ "$status" -eq 64 ]
	[[ "$output" == *"JPEG has no alpha channel"*"PNG or PAM"* ]]
	[ ! -e x.jpg ] || [ "$(djpeg -pnm x.jpg | head -c 2)" = P5 ] # only the --depth 8 one
}

@test "what a stage or a format cannot take is a usage error naming the fix, before any work" {
	rand_pam 9 9 3 8 rgb.pam
	rand_pam 9 9 1 8 g8.pam
	rand_pam 9 9 2 16 ga16.pam
	run "$GPUFILT" rgb.pam --threshold otsu -o t.png
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "gpufilt: rgb.pam: --threshold otsu takes one channel, not RGB 8-bit (8u_C3): put --gray before it" ]
	"$GPUFILT" rgb.pam --gray --threshold otsu -o t.png -q
	run "$GPUFILT" g8.pam --threshold 300 -o t.png
	[ "$status" -eq 64 ]
	[[ "$output" == *"--threshold 300 is above 255"*"--depth 16"* ]]
	"$GPUFILT" g8.pam --depth 16 --threshold 300 -o t.png -q
	run "$GPUFILT" g8.pam --mean 3 --border constant=300 -o t.png
	[ "$status" -eq 64 ]
	run "$GPUFILT" rgb.pam -o t.pgm
	[ "$status" -eq 64 ]
	[[ "$output" == *"PGM holds gray images, not RGB 8-bit: put --gray before the output, or write PPM or PNG"* ]]
	run "$GPUFILT" ga16.pam -o t.ppm
	[ "$status" -eq 64 ]
	[[ "$output" == *"PPM holds RGB images"*"PAM or PNG"* ]]
	[ ! -e t.pgm ]
	[ ! -e t.ppm ]
	# a batch: the file that cannot be written fails alone, the others are written
	run "$GPUFILT" rgb.pam g8.pam -o 'o/{stem}.pgm'
	[ "$status" -eq 64 ]
	[ -s o/g8.pgm ]
	[ ! -e o/rgb.pgm ]
}

@test "--max-image-bytes counts the decoded image's bytes" {
	rand_pam 10 10 4 16 big.pam # 800 bytes
	run "$GPUFILT" big.pam -o x.png --max-image-bytes 799
	[ "$status" -eq 65 ]
	[[ "$output" == *"takes 800 bytes, over --max-image-bytes 799"* ]]
	"$GPUFILT" big.pam -o x.png --max-image-bytes 800 -q
}

@test "reports of colour and 16-bit images: a column, a JSON member, statistics and a plot line per channel" {
	rand_pam 31 17 4 16 in.pam
	"$GPUFILT" in.pam --hist h.csv --hist h.json --hist h.svg --colsum c.csv --rowsum r.json -q
	[ "$(head -n 1 h.csv)" = "value,red,green,blue,alpha" ]
	[ "$(wc -l <h.csv)" -eq 65537 ]
	[ "$(head -n 1 c.csv)" = "index,red,green,blue,alpha,red_mean,green_mean,blue_mean,alpha_mean" ]
	python3 - <<'PY'
import json, sys
sys.path.insert(0, __import__("os").environ["ROOT"] + "/tests/cli")
import numpy as np
from layouts import read_pnm
a, bits = read_pnm("in.pam")
h = json.load(open("h.json"))
assert h["bits"] == 16 and h["channels"] == ["red", "green", "blue", "alpha"]
for c, name in enumerate(h["channels"]):
    assert h["bins"][name] == np.bincount(a[:, :, c].ravel(), minlength=65536).tolist()
    s = h["stats"][name]
    assert s["min"] == a[:, :, c].min() and s["max"] == a[:, :, c].max()
    assert abs(s["mean"] - a[:, :, c].mean()) < 1e-6 * 65535
r = json.load(open("r.json"))
assert r["axis"] == "row" and r["channels"] == h["channels"]
for c, name in enumerate(r["channels"]):
    assert r["sums"][name] == a[:, :, c].sum(axis=1).tolist()
    assert r["total"][name] == a[:, :, c].sum()
PY
	for k in red green blue alpha; do grep -q ">$k</text>" h.svg || { echo "no legend $k"; false; }; done
	xmllint --noout h.svg
	"$GPUFILT" in.pam --stats -q >s.txt
	grep -q '^alpha.max=' s.txt
	[ "$(grep -c '^red\.' s.txt)" -eq 15 ]
	run "$GPUFILT" in.pam --hist h.csv
	[ "$(echo "$output" | grep -c '^hist of in.pam, ')" -eq 4 ]
}

@test "a batch of mixed layouts keeps each file's own" {
	rand_pam 20 10 1 8 a.pam
	rand_pam 20 10 3 16 b.pam
	rand_pam 20 10 4 8 c.pam
	cp "$SAMPLES/rocket.jpg" d.jpg
	"$GPUFILT" a.pam b.pam c.pam d.jpg --mean 3 -o out/ -q
	for f in a b c; do
		"$GPUFILT" out/$f.png -o $f.back.pam -q
		"$GPUFILT" $f.pam --mean 3 -o $f.want.pam -q
		cmp $f.back.pam $f.want.pam
	done
	[ "$(pngtopam out/d.png | head -c 2)" = P6 ] # RGB
}
