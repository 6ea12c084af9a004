#!/usr/bin/env bats
# --resize, --filter and --crop: every layout and filter byte for byte against
# Pillow's Image.resize, --crop against numpy slicing, every geometry form's
# output size against /usr/bin/convert (tests/cli/oracle_resize.py, one part
# per test); then bad geometry and filter names, a crop wholly outside the
# image, stdin to stdout, and a batch of thumbnails.

load helper

oracle() { # oracle PART...: oracle_resize.py's parts on the CPU backend
	run python3 "$ROOT/tests/cli/oracle_resize.py" "$GPUFILT" "${GPUFILT_TEST_SEED:-$RANDOM$RANDOM}" cpu "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}

# size FILE: "W H" of an image, by Debian's ImageMagick
size() {
	/usr/bin/identify -format '%w %h' "$1"
}

@test "--resize WxH! equals Pillow's Image.resize for every filter and layout (oracle_resize.py pillow)" {
	oracle pillow
}

@test "--crop equals numpy slicing of the region cut to the image; wholly outside exits 64 (oracle_resize.py crop)" {
	oracle crop
}

@test "--resize's output size equals convert -resize's for every geometry form (oracle_resize.py geometry)" {
	oracle geometry
}

@test "--filter holds for later --resize flags only; resize and crop run in flag order; cpu and auto backends agree" {
	oracle order backend
}

@test "bad geometry or filter exits 64, names the flag and writes nothing" {
	python3 "$ROOT/tests/cli/ref.py" random 9 9 "$RANDOM" in.pgm
	for args in "--resize 0x0" "--resize -5x3" "--resize x" "--resize abc%" \
		"--resize 0%" "--resize 10+2" "--resize 10x-3" "--resize 4:3@" "--crop x" "--crop -5x3" "--crop abc%" "--crop 0x5+1+1" "--crop 5x5+1" \
		"--filter cubic" "--filter lanczos3" "--filter ''" "--resize 5x5! --filter box"; do
		run bash -c "'$GPUFILT' in.pgm -o out.png $args"
		echo "$args: exit $status: $output"
		[ "$status" -eq 64 ]
		flag=${args##*--}
		flag=--${flag%% *}
		[[ "$output" == *"gpufilt: $flag"* ]]
		[ ! -e out.png ]
	done
	no_temporaries
}

@test "the forms scripts use that convert takes: 10x, 200x^, Wx> and Wx<, A@, W:H" {
	# coins.png is 384x303; the sizes are convert -resize's
	for case in "10x 10 8" "200x^ 253 200" "10x> 10 8" "10x< 384 303" "500x> 384 303" \
		"10000@ 112 88" "4:3 384 288" "16x9+3+4 11 9"; do
		set -- $case
		"$GPUFILT" "$SAMPLES/coins.png" -o out.pgm --resize "$1" -q
		echo "$1: $(size out.pgm), want $2 $3"
		[ "$(size out.pgm)" = "$2 $3" ]
		if [ -x /usr/bin/convert ]; then
			[ "$(/usr/bin/convert "$SAMPLES/coins.png" -resize "$1" -format '%w %h' info:)" = "$2 $3" ]
		fi
	done
	"$GPUFILT" --help | grep -q -- "--resize GEOMETRY"
	"$GPUFILT" --help | grep -q "Wx"
}

@test "--max-pixels allows a --resize of exactly that many pixels" {
	python3 "$ROOT/tests/cli/ref.py" random 9 9 "$RANDOM" in.pgm
	"$GPUFILT" in.pgm -o out.pgm --max-pixels 100 --resize 10x10! -q
	[ "$(size out.pgm)" = "10 10" ]
	"$GPUFILT" in.pgm -o out.pgm --max-pixels 100 --resize 50x2! -q
	[ "$(size out.pgm)" = "50 2" ]
}

@test "a --resize past --max-pixels exits 64 naming --resize, nothing written" {
	python3 "$ROOT/tests/cli/ref.py" random 9 9 "$RANDOM" in.pgm
	for args in "--resize 20000x20000!" "--max-pixels 100 --resize 11x10!" \
		"--max-pixels 100 --resize 100x2!" "--max-pixels 100 --resize 200%" \
		"--max-pixels 1000 --resize x40" "--resize 1000000%" \
		"--max-pixels 100 --resize 10x10! --resize 11x10!"; do
		run bash -c "'$GPUFILT' in.pgm -o out.png $args"
		echo "$args: exit $status: $output"
		[ "$status" -eq 64 ]
		[[ "$output" == *"--resize"* ]]
		[ ! -e out.png ]
	done
	no_temporaries
}

@test "a crop wholly outside the image exits 64 with one message and no output" {
	python3 "$ROOT/tests/cli/ref.py" random 9 7 "$RANDOM" in.pgm
	for g in 5x5+9+0 5x5+0+7 5x5-5+0 5x5+0-5 1x1-1-1 3x3+100+100 1x1+9+6; do
		run "$GPUFILT" in.pgm -o out.png --crop "$g"
		echo "--crop $g: exit $status: $output"
		[ "$status" -eq 64 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "gpufilt: "* ]]
		[ ! -e out.png ]
	done
	# the last pixel and a region over every edge are inside
	"$GPUFILT" in.pgm -o a.pgm --crop 1x1+8+6 -q
	[ "$(size a.pgm)" = "1 1" ]
	"$GPUFILT" in.pgm -o b.pgm --crop 20x20-3-2 -q
	[ "$(size b.pgm)" = "9 7" ]
	cmp <(tail -c 63 in.pgm) <(tail -c 63 b.pgm)
	no_temporaries
}

@test "--resize reads stdin and writes stdout, the bytes of file to file, equal to Pillow" {
	"$GPUFILT" - -o - --format ppm --filter bilinear --resize 123x45! -q <"$SAMPLES/coffee.png" >pipe.ppm
	"$GPUFILT" "$SAMPLES/coffee.png" -o file.ppm --filter bilinear --resize 123x45! -q
	cmp pipe.ppm file.ppm
	"$GPUFILT" - -o - --format pgm --resize 50% -q <"$SAMPLES/camera.png" >pipe.pgm
	[ "$(size pipe.pgm)" = "256 256" ]
	python3 - "$SAMPLES/coffee.png" "$SAMPLES/camera.png" <<'PY'
import sys
import numpy as np
from PIL import Image
got = np.asarray(Image.open("pipe.ppm"))
want = np.asarray(Image.open(sys.argv[1]).resize((123, 45), Image.Resampling.BILINEAR))
assert got.shape == want.shape and (got == want).all(), (got.shape, want.shape)
got = np.asarray(Image.open("pipe.pgm"))
want = np.asarray(Image.open(sys.argv[2]).resize((256, 256), Image.Resampling.LANCZOS))
assert got.shape == want.shape and (got == want).all(), (got.shape, want.shape)
PY
}

@test "a batch of thumbnails: -o 'thumbs/{stem}.jpg' --resize 64x64 gives convert's sizes" {
	"$GPUFILT" "$SAMPLES"/*.png -o 'thumbs/{stem}.jpg' --resize 64x64 -q
	n=0
	for f in "$SAMPLES"/*.png; do
		stem=$(basename "$f" .png)
		want=$(/usr/bin/convert -size "$(size "$f" | tr ' ' x)" xc:gray -resize 64x64 -format '%w %h' info:)
		got=$(size "thumbs/$stem.jpg")
		echo "$stem: $got, convert $want"
		[ "$got" = "$want" ]
		n=$((n + 1))
	done
	[ "$n" -ge 6 ]
	[ "$(ls thumbs | wc -l)" -eq "$n" ]
	no_temporaries thumbs
}

@test "--resize to the input's size and --crop of the whole image are copies" {
	python3 "$ROOT/tests/cli/ref.py" random 31 17 "$RANDOM" in.pgm
	for f in nearest box bilinear hamming bicubic lanczos; do
		"$GPUFILT" in.pgm -o out.pgm --filter $f --resize 31x17! -q
		cmp in.pgm out.pgm
		"$GPUFILT" in.pgm -o out.pgm --filter $f --resize 31x17 -q
		cmp in.pgm out.pgm
	done
	"$GPUFILT" in.pgm -o out.pgm --crop 31x17 -q
	cmp in.pgm out.pgm
	"$GPUFILT" in.pgm -o out.pgm --crop 31x17+0+0 -q
	cmp in.pgm out.pgm
}

@test "--resize of a JPEG resizes the decoded pixels (equal to Pillow on gpufilt's own decoding)" {
	for f in rocket.jpg hubble_deep_field.jpg; do
		"$GPUFILT" "$SAMPLES/$f" -o dec.ppm -q
		"$GPUFILT" "$SAMPLES/$f" -o small.ppm --resize 97x61! -q
		"$GPUFILT" "$SAMPLES/$f" -o half.ppm --filter box --resize 50% -q
		"$GPUFILT" "$SAMPLES/$f" -o decg.pgm --gray -q
		"$GPUFILT" "$SAMPLES/$f" -o gray.pgm --gray --filter bicubic --resize 33x200! -q
		want=$(/usr/bin/convert "$SAMPLES/$f" -resize 50% -format '%wx%h' info:)
		python3 - "$want" <<'PY'
import sys
import numpy as np
from PIL import Image
dec = Image.open("dec.ppm")
w, h = map(int, sys.argv[1].split("x"))
R = Image.Resampling
for path, im, size, flt in (("small.ppm", dec, (97, 61), R.LANCZOS),
                            ("half.ppm", dec, (w, h), R.BOX)):
    got, want = np.asarray(Image.open(path)), np.asarray(im.resize(size, flt))
    assert got.shape == want.shape and (got == want).all(), (path, got.shape, want.shape)
got = np.asarray(Image.open("gray.pgm"))
want = np.asarray(Image.open("decg.pgm").resize((33, 200), R.BICUBIC))
assert got.shape == want.shape and (got == want).all(), ("gray.pgm", got.shape, want.shape)
PY
	done
}

@test "reports see the image of their place: --hist before and after --resize and --crop" {
	"$GPUFILT" "$SAMPLES/coins.png" -o out.png --hist a.csv --resize 10x7! --hist b.csv \
		--crop 4x3+8+5 --hist c.csv -q
	[ "$(size out.png)" = "2 2" ]
	[ "$(awk -F, 'END {print $3}' a.csv)" = 116352 ] # 384 x 303
	[ "$(awk -F, 'END {print $3}' b.csv)" = 70 ]
	[ "$(awk -F, 'END {print $3}' c.csv)" = 4 ]
}
