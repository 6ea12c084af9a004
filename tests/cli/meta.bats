#!/usr/bin/env bats
# Metadata: a JPEG with a fresh random ICC profile and EXIF (written by
# exiftool) keeps both through JPEG, PNG, WebP and TIFF outputs, the profile
# byte for byte as exiftool reads it back; EXIF in TIFF (its EXIF
# directory) from JPEG, PNG and WebP inputs as exiftool and Pillow read it,
# and from TIFF to the others; --auto-orient and orientation stages leave
# Orientation 1; --strip leaves neither; TIFF's Orientation tag turns it;
# every malformed or over-limit profile or EXIF block of every format
# (tests/cli/meta_files.py) is dropped with one warning line naming the
# file and the image still written (exit 0).

load helper

# make_icc OUT [SIZE_DELTA]: a random ICC profile of a valid header (its
# size field, off by SIZE_DELTA when given, "acsp", RGB) and random bytes.
make_icc() {
	python3 - "$1" "${2:-0}" "$RANDOM" <<'PY'
import random, struct, sys
rng = random.Random(int(sys.argv[3]))
n = 132 + 1000 + rng.randrange(1 << 16)
p = bytearray(rng.randbytes(n))
p[0:4] = struct.pack(">I", n + int(sys.argv[2]))
p[4:128] = bytes(124)
p[12:16], p[16:20], p[20:24], p[36:40] = b"mntr", b"RGB ", b"XYZ ", b"acsp"
p[128:132] = bytes(4)
open(sys.argv[1], "wb").write(p)
PY
}

# photo OUT.jpg: a JPEG with the profile p.icc, Orientation 6 and an Artist.
photo() {
	convert "$SAMPLES/coffee.png" -resize 25% "$1"
	exiftool -q -q -overwrite_original "-icc_profile<=p.icc" -Orientation#=6 -Artist=Tester "$1"
}

icc_of() { # icc_of FILE: the profile exiftool reads
	exiftool -q -q -b -icc_profile "$1"
}

@test "a JPEG's ICC profile and EXIF go to JPEG, PNG, WebP and TIFF, the profile byte for byte" {
	make_icc p.icc
	photo in.jpg
	for e in jpg png webp tif; do
		"$GPUFILT" in.jpg --mean 3 -o out.$e -q
		icc_of out.$e | cmp - p.icc || { echo "profile differs: $e"; false; }
	done
	for e in jpg png webp tif; do
		[ "$(exiftool -s -s -s -Artist out.$e)" = Tester ] || { echo "no Artist: $e"; false; }
		[ "$(exiftool -s -s -s -Orientation# out.$e)" = 6 ] || { echo "Orientation: $e"; false; }
	done
	# a PNG output has an iCCP chunk before its image data
	python3 -c "
import sys; d = open('out.png', 'rb').read()
assert 0 < d.find(b'iCCP') < d.find(b'IDAT'), 'no iCCP before IDAT'
assert 0 < d.find(b'eXIf') < d.find(b'IDAT'), 'no eXIf before IDAT'"
	# and back again: from PNG, WebP and TIFF to JPEG
	for e in png webp tif; do
		"$GPUFILT" out.$e -o back.jpg -q
		icc_of back.jpg | cmp - p.icc
		[ "$(exiftool -s -s -s -Artist back.jpg)" = Tester ]
	done
}

@test "--auto-orient and orientation stages write Orientation 1; the pixels turned once" {
	make_icc p.icc
	photo in.jpg
	for e in jpg png webp; do
		"$GPUFILT" in.jpg --auto-orient -o up.$e -q
		[ "$(exiftool -s -s -s -Orientation# up.$e)" = 1 ]
		[ "$(exiftool -s -s -s -Artist up.$e)" = Tester ]
		# read again with --auto-orient: upright already, not turned twice
		"$GPUFILT" up.$e --auto-orient -o again.png -q
		[ "$(exiftool -s -s -s -ImageSize again.png)" = "$(exiftool -s -s -s -ImageSize up.$e)" ]
	done
	[ "$(exiftool -s -s -s -ImageSize up.png)" = 100x150 ]
	"$GPUFILT" in.jpg --rotate 90 -o r.jpg -q
	[ "$(exiftool -s -s -s -Orientation# r.jpg)" = 1 ]
	"$GPUFILT" in.jpg --mean 3 -o m.jpg -q
	[ "$(exiftool -s -s -s -Orientation# m.jpg)" = 6 ]
}

@test "a TIFF's Orientation tag turns it with --auto-orient" {
	make_icc p.icc
	photo in.jpg
	"$GPUFILT" in.jpg -o t.tif -q
	exiftool -q -q -overwrite_original -Orientation#=6 t.tif
	"$GPUFILT" t.tif --auto-orient -o up.png -q
	[ "$(exiftool -s -s -s -ImageSize up.png)" = 100x150 ]
	"$GPUFILT" t.tif -o as.png -q
	[ "$(exiftool -s -s -s -ImageSize as.png)" = 150x100 ]
}

# tagged IN: a fresh random image IN (jpg, png or webp; Pillow writes it)
# with EXIF written by exiftool: Make, Model, DateTimeOriginal (in the EXIF
# IFD), Orientation 6; the values in make, model, when.
tagged() {
	make=Make$RANDOM model=Model$RANDOM when="20$((10 + RANDOM % 20)):0$((1 + RANDOM % 9)):1$((RANDOM % 10)) 12:34:5$((RANDOM % 10))"
	python3 -c "
import sys
import numpy as np
from PIL import Image
a = np.random.default_rng(int(sys.argv[2])).integers(0, 256, size=(30, 47, 3)).astype(np.uint8)
Image.fromarray(a).save(sys.argv[1], **({'lossless': True} if sys.argv[1].endswith('webp') else {}))" "$1" "$RANDOM"
	exiftool -q -q -overwrite_original -Make="$make" -Model="$model" -DateTimeOriginal="$when" \
		-Orientation#=6 "$1"
	[ "$(exiftool -s -s -s -Make "$1")" = "$make" ]
}

# exif_is FILE ORIENTATION: exiftool and Pillow's getexif() (DateTimeOriginal
# from its EXIF IFD) read back make, model, when and ORIENTATION.
exif_is() {
	[ "$(exiftool -s -s -s -Make "$1")" = "$make" ] || { echo "$1: exiftool Make"; false; }
	[ "$(exiftool -s -s -s -Model "$1")" = "$model" ] || { echo "$1: exiftool Model"; false; }
	[ "$(exiftool -s -s -s -DateTimeOriginal "$1")" = "$when" ] || { echo "$1: exiftool date"; false; }
	[ "$(exiftool -s -s -s -Orientation# "$1")" = "$2" ] || { echo "$1: exiftool Orientation"; false; }
	python3 - "$1" "$make" "$model" "$when" "$2" <<'PY'
import sys
from PIL import Image
path, make, model, when, orient = sys.argv[1:]
e = Image.open(path).getexif()
got = (e.get(271), e.get(272), e.get_ifd(0x8769).get(36867), e.get(274))
assert got == (make, model, when, int(orient)), (path, got)
PY
}

@test "EXIF in TIFF outputs: from JPEG, PNG and WebP, as exiftool and Pillow read it; turned: Orientation 1; --strip: none" {
	for in in jpg png webp; do
		tagged in.$in
		"$GPUFILT" in.$in --mean 3 -o plain.tif -q
		exif_is plain.tif 6
		# the EXIF directory, as libtiff itself reads it
		tiffinfo plain.tif 2>err.txt | grep -q "EXIF directory"
		[ ! -s err.txt ]
		"$GPUFILT" in.$in --auto-orient -o up.tif -q
		exif_is up.tif 1
		[ "$(exiftool -s -s -s -ImageSize up.tif)" = 30x47 ]
		"$GPUFILT" in.$in --rotate 90 -o r.tif -q
		exif_is r.tif 1
		"$GPUFILT" in.$in --strip -o s.tif -q
		[ -z "$(exiftool -s -s -s -Make -Model -DateTimeOriginal -Orientation s.tif)" ]
		[ "$(tiffinfo s.tif 2>/dev/null | grep -c "EXIF")" -eq 0 ]
		# read with --auto-orient again: upright already
		"$GPUFILT" up.tif --auto-orient -o again.pam -q
		[ "$(sed -n 2,3p again.pam | tr '\n' ' ')" = "WIDTH 30 HEIGHT 47 " ]
	done
}

@test "a TIFF's EXIF (its tags and EXIF directory) goes to JPEG, PNG, WebP and TIFF" {
	tagged in.jpg
	"$GPUFILT" in.jpg -o in.tif -q
	for e in jpg png webp tif; do
		"$GPUFILT" in.tif --mean 3 -o out.$e -q
		exif_is out.$e 6
		"$GPUFILT" in.tif --auto-orient -o up.$e -q
		exif_is up.$e 1
	done
	# a TIFF that exiftool tagged, and one with none of it
	python3 -c "
import sys
import numpy as np, tifffile
tifffile.imwrite('t.tif', np.random.default_rng(int(sys.argv[1])).integers(0, 256, size=(9, 8, 3)).astype(np.uint8), photometric='rgb')" "$RANDOM"
	"$GPUFILT" t.tif -o none.jpg -q
	[ -z "$(exiftool -s -s -s -Make -Software none.jpg)" ]
	exiftool -q -q -overwrite_original -Make="$make" -Model="$model" -DateTimeOriginal="$when" \
		-Orientation#=6 t.tif
	"$GPUFILT" t.tif -o t.png -q
	exif_is t.png 6
}

@test "every malformed or over-limit profile or EXIF block is dropped with one warning line; exit 0, the image written" {
	python3 "$ROOT/tests/cli/meta_files.py" . "$RANDOM" >cases.txt
	[ "$(wc -l <cases.txt)" -ge 30 ]
	while IFS=$'\t' read -r f want; do
		run "$GPUFILT" "$f" -o "out-$f.png" -q
		echo "$f: exit $status: $output"
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 1 ]
		[ "$output" = "gpufilt: $f: $want" ]
		# the image is all there: the same pixels as read with --strip (nothing said)
		"$GPUFILT" "$f" -o a.pam -q --strip 2>err.txt
		[ ! -s err.txt ]
		"$GPUFILT" "out-$f.png" -o b.pam -q
		cmp a.pam b.pam
		# the output holds no profile (no EXIF) but where a second block was dropped
		case $want in
		*"a second"*) ;;
		"ICC profile"*) [ -z "$(icc_of "out-$f.png" | head -c 1 | od -An)" ] ;;
		*) [ -z "$(exiftool -s -s -s -Make "out-$f.png")" ] ;;
		esac
	done <cases.txt
	no_temporaries
}

@test "--strip writes no profile and no EXIF" {
	make_icc p.icc
	photo in.jpg
	for e in jpg png webp tif; do
		"$GPUFILT" in.jpg --strip -o s.$e -q
		[ -z "$(icc_of s.$e)" ] || { echo "profile kept: $e"; false; }
		[ -z "$(exiftool -s -s -s -Artist s.$e)" ] || { echo "EXIF kept: $e"; false; }
	done
	# and the plain outputs are the bytes of a file without metadata
	convert "$SAMPLES/coffee.png" -resize 25% plain.jpg
	for e in png webp; do
		"$GPUFILT" plain.jpg -o p.$e -q
		"$GPUFILT" in.jpg --strip -o s.$e -q
		cmp p.$e s.$e
	done
}

@test "a gray output leaves an RGB profile out" {
	make_icc p.icc
	photo in.jpg
	"$GPUFILT" in.jpg --gray -o g.png -q
	[ -z "$(icc_of g.png)" ]
	[ "$(exiftool -s -s -s -Artist g.png)" = Tester ]
}

@test "a broken profile is dropped with a warning; the image is written, exit 0" {
	make_icc p.icc 7 # the size field disagrees with the length
	photo in.jpg
	run "$GPUFILT" in.jpg --mean 3 -o out.png -q
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"gpufilt: in.jpg: ICC profile dropped: its header's size disagrees with its length"* ]]
	[ -s out.png ]
	[ -z "$(icc_of out.png)" ]
	[ "$(exiftool -s -s -s -Artist out.png)" = Tester ]
	# no "acsp"; an APP2 segment numbered 2 of 1
	make_icc p.icc
	photo good.jpg
	python3 - <<'PY'
d = bytearray(open("good.jpg", "rb").read())
i = d.find(b"ICC_PROFILE\0")
d[i + 12] = 2
open("bad_seq.jpg", "wb").write(d)
d[i + 12] = 1
j = d.find(b"acsp", i)
d[j:j + 4] = b"xxxx"
open("bad_sig.jpg", "wb").write(d)
PY
	run "$GPUFILT" bad_seq.jpg -o o1.png -q
	[ "$status" -eq 0 ]
	[[ "$output" == *"gpufilt: bad_seq.jpg: ICC profile dropped: its APP2 segments are misnumbered"* ]]
	run "$GPUFILT" bad_sig.jpg -o o2.png -q
	[ "$status" -eq 0 ]
	[[ "$output" == *"gpufilt: bad_sig.jpg: ICC profile dropped: no \"acsp\" signature"* ]]
	[ -s o1.png ]
	[ -s o2.png ]
}
