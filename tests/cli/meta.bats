#!/usr/bin/env bats
# Metadata: a JPEG with a fresh random ICC profile and EXIF (written by
# exiftool) keeps both through JPEG, PNG and WebP outputs and its profile
# through TIFF, byte for byte as exiftool reads them back; --auto-orient and
# orientation stages leave Orientation 1; --strip leaves neither; TIFF's
# Orientation tag turns it; a broken profile is dropped with a warning and
# the image still written (exit 0).

load helper

# make_icc OUT [SIZE_DELTA]: a random ICC profile of a valid header (its
# size field, off by SIZE_DELTA when given, "acsp", RGB) and random bytes.
make_icc() {
	python3 - "$1" "${2:-0}" <<'PY'
import os, struct, sys
n = 132 + 1000 + int.from_bytes(os.urandom(2), "big")
p = bytearray(os.urandom(n))
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

@test "a JPEG's ICC profile and EXIF go to JPEG, PNG and WebP, the profile to TIFF, byte for byte" {
	make_icc p.icc
	photo in.jpg
	for e in jpg png webp tif; do
		"$GPUFILT" in.jpg --mean 3 -o out.$e -q
		icc_of out.$e | cmp - p.icc || { echo "profile differs: $e"; false; }
	done
	for e in jpg png webp; do
		[ "$(exiftool -s -s -s -Artist out.$e)" = Tester ] || { echo "no Artist: $e"; false; }
		[ "$(exiftool -s -s -s -Orientation# out.$e)" = 6 ] || { echo "Orientation: $e"; false; }
	done
	# a PNG output has an iCCP chunk before its image data
	python3 -c "
import sys; d = open('out.png', 'rb').read()
assert 0 < d.find(b'iCCP') < d.find(b'IDAT'), 'no iCCP before IDAT'
assert 0 < d.find(b'eXIf') < d.find(b'IDAT'), 'no eXIf before IDAT'"
	# and back again: from PNG and WebP to JPEG
	for e in png webp; do
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
	[ -s o1.png ] && [ -s o2.png ]
}
