#!/usr/bin/env bats
# JPEG: colour and the luma rule against an independent decoder
# (libjpeg-turbo's djpeg, and djpeg -grayscale) on a generated corpus,
# --auto-orient against ImageMagick's -auto-orient, JPEG output, and broken
# JPEGs.

load helper

@test "a JPEG decodes as djpeg gives it; with --gray first, its Y as djpeg -grayscale" {
	sh "$ROOT/tests/data/make_jpegs.sh" corpus >/dev/null
	n=0
	for f in corpus/*.jpg; do
		djpeg -pnm "$f" >want.pnm # PPM for colour, PGM for gray
		ext=$(head -c 2 want.pnm | sed 's/P6/ppm/; s/P5/pgm/')
		"$GPUFILT" "$f" -o got.$ext -q
		cmp want.pnm got.$ext || { echo "differs: $f"; false; }
		djpeg -grayscale -pnm "$f" >want.pgm
		"$GPUFILT" "$f" --gray -o got.pgm -q
		cmp want.pgm got.pgm || { echo "differs in gray: $f"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 100 ]
}

@test "CMYK JPEGs are refused with a reason" {
	command -v convert >/dev/null || skip "ImageMagick missing"
	convert "$SAMPLES/coffee.png" -colorspace CMYK cmyk.jpg
	run "$GPUFILT" cmyk.jpg -o out.png
	[ "$status" -eq 65 ]
	[ "$output" = "gpufilt: cmyk.jpg: CMYK and YCCK JPEGs are not read" ]
}

# A gray JPEG of the sample with EXIF Orientation $1 (APP1 right after SOI).
orient_jpeg() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
o, path = int(sys.argv[1]), sys.argv[2]
d = open("base.jpg", "rb").read()
tiff = b"MM\0\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
tiff += struct.pack(">HHIHH", 0x0112, 3, 1, o, 0) + struct.pack(">I", 0)
app1 = b"Exif\0\0" + tiff
open(path, "wb").write(d[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + d[2:])
PY
}

@test "--auto-orient turns all eight EXIF orientations upright as ImageMagick does" {
	command -v convert >/dev/null || skip "ImageMagick missing"
	convert "$SAMPLES/coffee.png" -resize 61x37! -colorspace Gray -quality 92 base.jpg
	for o in 1 2 3 4 5 6 7 8; do
		orient_jpeg $o o$o.jpg
		convert o$o.jpg -auto-orient -depth 8 want$o.pgm
		"$GPUFILT" o$o.jpg --auto-orient -o got$o.pgm -q
		cmp want$o.pgm got$o.pgm || { echo "orientation $o"; false; }
		# without --auto-orient the pixels are as stored
		"$GPUFILT" o$o.jpg -o stored$o.pgm -q
		cmp stored$o.pgm got1.pgm
	done
	# a malformed EXIF block means orientation 1
	python3 -c "
d = open('o6.jpg', 'rb').read()
open('bad.jpg', 'wb').write(d.replace(b'MM\0\x2a', b'MM\0\x2b'))"
	"$GPUFILT" bad.jpg --auto-orient -o bad.pgm -q
	cmp bad.pgm got1.pgm
	# the stage shows in the timing table
	run "$GPUFILT" o6.jpg --auto-orient -o x.png --backend cpu
	[[ "$output" == *"  rotate 90 "* ]]
}

@test "JPEG output: gray, at the quality asked, and it decodes back close to the image" {
	"$GPUFILT" "$SAMPLES/camera.png" -o in.pgm -q
	"$GPUFILT" in.pgm -o q90.jpg -q
	"$GPUFILT" in.pgm -o q50.jpg --quality 50 -q
	"$GPUFILT" in.pgm -o - --format jpeg -q >stdout.jpg
	cmp q90.jpg stdout.jpg
	[ "$(stat -c %s q50.jpg)" -lt "$(stat -c %s q90.jpg)" ]
	"$GPUFILT" q90.jpg -o back.pgm -q
	python3 - <<'PY'
import sys
sys.path.insert(0, __import__("os").environ["ROOT"] + "/bench")
from pgm import read_pgm
w, h, a = read_pgm("in.pgm")
w2, h2, b = read_pgm("back.pgm")
assert (w, h) == (w2, h2)
err = sum(abs(x - y) for x, y in zip(a, b)) / len(a)
assert err < 2.5, err
PY
	# one component: a gray JPEG
	python3 -c "
d = open('q90.jpg', 'rb').read(); i = d.index(b'\xff\xc0')
assert d[i + 9] == 1, d[i + 9]"
}

@test "corrupt and truncated JPEGs exit 65 with one line naming JPEG" {
	cp "$SAMPLES/rocket.jpg" r.jpg
	head -c 20000 r.jpg >trunc.jpg
	head -c 300 r.jpg >header-only.jpg
	python3 -c "
d = bytearray(open('r.jpg', 'rb').read())
for i in range(3000, len(d) - 2, 41):
    d[i] = 0xff if d[i] != 0xff else 0
open('corrupt.jpg', 'wb').write(d)"
	for f in trunc.jpg header-only.jpg corrupt.jpg; do
		run "$GPUFILT" $f -o out.png
		echo "$f: $output"
		[ "$status" -eq 65 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "gpufilt: $f: "*"JPEG"* ]]
	done
	[ ! -e out.png ]
}
