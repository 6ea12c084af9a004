#!/usr/bin/env bats
# Rough edges a new user and a hostile-input probe hit (2026-11-24): set-up
# that a stand-in tool cannot fool, non-images refused from their first
# bytes, BMP palette counts, quiet broken pipes, an in-place CPU mirror.
# Each test failed before its fix.

load helper

@test "a stand-in convert on PATH fools neither the dependency check nor the tests" {
	mkdir stub
	printf '#!/bin/sh\necho "convert: a stand-in"\nexit 1\n' >stub/convert
	chmod +x stub/convert
	want=0
	sh "$ROOT/scripts/deps.sh" check 2>/dev/null || want=$?
	run env PATH="$PWD/stub:$PATH" sh "$ROOT/scripts/deps.sh" check
	[ "$status" -eq "$want" ] # dpkg's record decides, not what PATH finds
	run env PATH="$PWD/stub:$PATH" BATS_TEST_DIRNAME="$BATS_TEST_DIRNAME" \
		bash -c ". '$BATS_TEST_DIRNAME/helper.bash'; convert -version"
	[ "$status" -eq 0 ]
	[[ "$output" == *ImageMagick* ]]
}

@test "a non-image is refused from its first bytes; a stream is read no further than its header needs" {
	command -v /usr/bin/time >/dev/null || skip "/usr/bin/time is not installed"
	[ -z "${GPUFILT_SANITIZER:-}" ] || skip "a sanitizer's shadow memory hides the peak"
	for f in /dev/zero /dev/urandom; do
		run /usr/bin/time -f "%M" "$GPUFILT" $f -o out.png
		echo "$f: $output"
		[ "$status" -eq 65 ]
		[ "${lines[0]}" = "gpufilt: $f: unknown image format (PNG, PGM, PPM, PAM, JPEG, TIFF, WebP and BMP are read)" ]
		[ "${lines[-1]}" -lt 30000 ] # KB: not the 1.3 GB read up to --max-file-size
	done
	# a 1000x1000 PGM followed by endless zeros: the image, and 1 MB is read past it at most
	run /usr/bin/time -f "%M" sh -c "{ printf 'P5\n1000 1000\n255\n'; cat /dev/zero; } | '$GPUFILT' - -o out.png -q"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" -lt 100000 ]
	python3 -c "
import cv2, numpy as np
im = cv2.imread('out.png', cv2.IMREAD_UNCHANGED)
assert im.shape == (1000, 1000) and not im.any()"
	# a header over the limits, then zeros: refused from the header
	run /usr/bin/time -f "%M" sh -c "{ printf 'P5\n16000 16000\n65535\n'; cat /dev/zero; } | '$GPUFILT' - -o out.png --max-image-bytes 100000000"
	[ "$status" -eq 65 ]
	[[ "${lines[0]}" == "gpufilt: (stdin): PGM image of 16000x16000 gray 16-bit takes"*"over --max-image-bytes 100000000" ]]
	[ "${lines[-1]}" -lt 30000 ]
	# a header never understood: the reading stops, and the decoder says why
	run /usr/bin/time -f "%M" sh -c "{ printf 'P5\n'; cat /dev/zero; } | '$GPUFILT' - -o out.png"
	[ "$status" -eq 65 ]
	[[ "${lines[0]}" == "gpufilt: (stdin): "* ]]
	[ "${lines[-1]}" -lt 60000 ]
	no_temporaries
}

@test "a BMP palette count past its bit depth and the file is refused" {
	python3 - <<'PY'
import struct
w, h = 4, 2
rows = bytes([0, 1, 1, 0]) * h
pal = b"\0\0\0\0\xff\xff\xff\0"
for used, name in ((1 << 31, "huge.bmp"), (300, "over.bmp"), (2, "ok.bmp")):
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 8, 0, len(rows), 2835, 2835, used, 0)
    off = 14 + 40 + len(pal)
    fh = struct.pack("<2sIHHI", b"BM", off + len(rows), 0, 0, off)
    open(name, "wb").write(fh + info + pal + rows)
PY
	for f in huge.bmp over.bmp; do
		run "$GPUFILT" $f -o out.png
		echo "$output"
		[ "$status" -eq 65 ]
		[ "$output" = "gpufilt: $f: BMP palette larger than its bit depth allows" ]
		[ ! -e out.png ]
	done
	run "$GPUFILT" ok.bmp --gray -o out.pgm -q
	[ "$status" -eq 0 ]
	[ "$(tail -c 8 out.pgm | od -An -tu1 | tr -s ' ')" = " 0 255 255 0 0 255 255 0" ]
}

@test "a reader that goes away ends gpufilt quietly by SIGPIPE; a full disk still exits 74" {
	$REF random 2000 2000 3 big.pgm
	run bash -c "'$GPUFILT' big.pgm -o - --format pgm 2>err | head -c 10 >/dev/null; echo \${PIPESTATUS[0]}"
	[ "$output" -eq 141 ] # 128 + SIGPIPE, as cat's
	[ ! -s err ]
	if [ -w /dev/full ]; then
		run bash -c "'$GPUFILT' big.pgm -o - --format pgm >/dev/full"
		[ "$status" -eq 74 ]
		[[ "$output" == "gpufilt: (stdout): write error: No space left on device"* ]]
	fi
	no_temporaries
}

@test "a CPU mirror writes over its decoded input: no second image is faulted in" {
	command -v /usr/bin/time >/dev/null || skip "/usr/bin/time is not installed"
	[ -z "${GPUFILT_SANITIZER:-}" ] || skip "a sanitizer's allocator changes the faults"
	$REF random 4096 2048 7 big.pgm
	faults() { /usr/bin/time -f "%R" "$GPUFILT" big.pgm -o out.pgm -q --backend cpu "$@" 2>&1 | tail -n 1; }
	base=$(faults)
	for op in --flip --flop "--rotate 180"; do
		n=$(faults $op)
		echo "$op: $n minor faults, $base without a stage"
		[ $((n - base)) -lt 512 ] # an 8 MB output would add 2048 pages
	done
	# and the bytes are numpy's
	for op in flip flop; do
		"$GPUFILT" big.pgm -o $op.pgm -q --backend cpu --$op
	done
	"$GPUFILT" big.pgm -o r180.pgm -q --backend cpu --rotate 180
	python3 - <<'PY'
import numpy as np
def pgm(p):
    d = open(p, "rb").read()
    parts = d.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][:w * h], np.uint8).reshape(h, w)
a = pgm("big.pgm")
assert (pgm("flip.pgm") == a[::-1]).all()
assert (pgm("flop.pgm") == a[:, ::-1]).all()
assert (pgm("r180.pgm") == a[::-1, ::-1]).all()
PY
}
