#!/usr/bin/env bats
# WebP: reading against libwebp's dwebp (files made by cwebp, lossy and
# lossless, with and without alpha) and Pillow (animations: the first
# frame, and a note), writing checked by dwebp (--lossless keeps every
# sample, lossy at --quality), stdin and stdout, and the refusals: broken
# files (exit 65, one line, no output) and what WebP cannot hold (exit 64).
# tests/cli/oracle_webp.py does the same on fresh random images.

load helper

rgba_png() { # rgba_png OUT: 61x37 RGBA, alpha a ramp with zeros, colour under it random
	python3 - "$1" "$RANDOM" <<'PY'
import sys
import numpy as np
from PIL import Image
rng = np.random.default_rng(int(sys.argv[2]))
a = rng.integers(0, 256, size=(37, 61, 4), dtype=np.uint8)
a[..., 3] = (np.arange(61) * 5)[None, :] % 256
a[::4, :, 3] = 0
Image.fromarray(a, "RGBA").save(sys.argv[1])
PY
}

@test "WebP: fresh random images against dwebp, Pillow's animations, and written back (oracle_webp.py)" {
	run python3 "$ROOT/tests/cli/oracle_webp.py" "$GPUFILT" "${GPUFILT_TEST_SEED:-$RANDOM$RANDOM}" cpu
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}

@test "cwebp's lossy, lossless and alpha files decode byte for byte as dwebp -ppm and -pam give them" {
	cwebp -quiet "$SAMPLES/coffee.png" -o lossy.webp
	cwebp -quiet -q 30 -m 6 -sharp_yuv "$SAMPLES/astronaut.png" -o sharp.webp
	cwebp -quiet -lossless "$SAMPLES/coffee.png" -o lossless.webp
	cwebp -quiet "$SAMPLES/camera.png" -o gray.webp
	for f in lossy sharp lossless gray; do
		dwebp -quiet $f.webp -ppm -o want.ppm
		"$GPUFILT" $f.webp -o got.ppm -q
		cmp want.ppm got.ppm || { echo "differs: $f"; false; }
	done
	rgba_png a.png
	cwebp -quiet -q 70 a.png -o alpha.webp
	cwebp -quiet -q 70 -alpha_q 30 a.png -o alphaq.webp
	cwebp -quiet -lossless -exact a.png -o alphall.webp
	for f in alpha alphaq alphall; do
		dwebp -quiet $f.webp -pam -o want.pam
		"$GPUFILT" $f.webp -o got.pam -q
		cmp want.pam got.pam || { echo "differs: $f"; false; }
		# and through PNG, read back by Pillow
		"$GPUFILT" $f.webp -o got.png -q
		python3 -c "
import sys
import numpy as np
from PIL import Image
g = np.array(Image.open('got.png')); assert g.shape == (37, 61, 4), g.shape
d = open('want.pam', 'rb').read().split(b'ENDHDR\n', 1)[1]
w = np.frombuffer(d, np.uint8).reshape(37, 61, 4)
sys.exit(int((g != w).any()))" || { echo "PNG differs: $f"; false; }
	done
	# the report names the decoder
	run "$GPUFILT" lossy.webp -o x.png
	[[ "$output" == *"decode         webp"* ]]
}

@test "an animated WebP gives its first frame as Pillow composes it, and one note on stderr" {
	python3 - "$RANDOM" <<'PY'
import sys
import numpy as np
from PIL import Image
rng = np.random.default_rng(int(sys.argv[1]))
fr = [rng.integers(0, 256, size=(29, 41, 4), dtype=np.uint8) for _ in range(3)]
for f in fr:
    f[..., 3] |= 1
fr[0][:4] = 0  # transparent rows: the first frame is stored smaller, at an offset
ims = [Image.fromarray(f, "RGBA") for f in fr]
ims[0].save("anim.webp", save_all=True, append_images=ims[1:], duration=40, lossless=True)
im = Image.open("anim.webp")
assert im.n_frames == 3
im.seek(0)
np.save("want.npy", np.array(im))
PY
	webpmux -info anim.webp | grep -q "Number of frames: 3"
	run "$GPUFILT" anim.webp -o got.pam -q
	[ "$status" -eq 0 ]
	[ "$output" = "gpufilt: anim.webp: animated WebP: the first of 3 frames is read" ]
	python3 -c "
import sys
sys.path.insert(0, '$ROOT/tests/cli')
import numpy as np
from layouts import read_pnm
g, _ = read_pnm('got.pam')
w = np.load('want.npy')
assert g.shape == w.shape, (g.shape, w.shape)
sys.exit(int((g != w).any()))"
	# dwebp itself reads no animation: libwebp's still-image decoder refuses it
	run dwebp -quiet anim.webp -pam -o x.pam
	[ "$status" -ne 0 ]
}

@test "gpufilt --lossless writes every sample, the colour under zero alpha too; gray as R = G = B" {
	rgba_png a.png
	"$GPUFILT" a.png --lossless -o a.webp -q
	dwebp -quiet a.webp -pam -o back.pam
	pngtopam -alphapam a.png >want.pam
	python3 -c "
import sys
sys.path.insert(0, '$ROOT/tests/cli')
from layouts import read_pnm
a, _ = read_pnm('back.pam'); b, _ = read_pnm('want.pam')
assert (b[..., 3] == 0).sum() > 100
sys.exit(int(a.shape != b.shape or (a != b).any()))"
	"$GPUFILT" "$SAMPLES/camera.png" --lossless -o c.webp -q
	dwebp -quiet c.webp -ppm -o c.ppm
	pngtopam "$SAMPLES/camera.png" | pgmtoppm white >want.ppm
	cmp c.ppm want.ppm
	# gpufilt reads it back as RGB
	"$GPUFILT" c.webp -o c2.ppm -q
	cmp c2.ppm want.ppm
}

@test "lossy WebP output: dwebp reads it at its size; --quality sets the size; the same bytes each run" {
	"$GPUFILT" "$SAMPLES/astronaut.png" -o q90.webp -q
	"$GPUFILT" "$SAMPLES/astronaut.png" -o again.webp -q
	cmp q90.webp again.webp
	"$GPUFILT" "$SAMPLES/astronaut.png" --quality 20 -o q20.webp -q
	[ "$(stat -c %s q20.webp)" -lt "$(stat -c %s q90.webp)" ]
	dwebp -quiet q90.webp -ppm -o back.ppm
	[ "$(head -c 20 back.ppm | sed -n 2p)" = "$(identify -format '%w %h' "$SAMPLES/astronaut.png")" ]
	# --lossless is a different file, larger
	"$GPUFILT" "$SAMPLES/astronaut.png" --lossless -o ll.webp -q
	[ "$(stat -c %s ll.webp)" -gt "$(stat -c %s q90.webp)" ]
	# alpha survives a lossy file exactly
	rgba_png a.png
	"$GPUFILT" a.png --quality 50 -o a.webp -q
	dwebp -quiet a.webp -pam -o back.pam
	pngtopam -alphapam a.png >want.pam
	python3 -c "
import sys
sys.path.insert(0, '$ROOT/tests/cli')
from layouts import read_pnm
a, _ = read_pnm('back.pam'); b, _ = read_pnm('want.pam')
sys.exit(int((a[..., 3] != b[..., 3]).any()))"
}

@test "WebP through stdin and stdout" {
	cwebp -quiet "$SAMPLES/coffee.png" -o c.webp
	dwebp -quiet c.webp -ppm -o want.ppm
	"$GPUFILT" - -o got.ppm -q <c.webp
	cmp want.ppm got.ppm
	"$GPUFILT" "$SAMPLES/coffee.png" --lossless --format webp -o - -q >out.webp
	[ "$(head -c 4 out.webp)" = RIFF ]
	[ "$(head -c 12 out.webp | tail -c 4)" = WEBP ]
	dwebp -quiet out.webp -ppm -o back.ppm
	pngtopam "$SAMPLES/coffee.png" >want.ppm
	cmp back.ppm want.ppm
	# stdin to stdout
	"$GPUFILT" - --format webp -o - -q <c.webp | dwebp -quiet -ppm -o piped.ppm -- -
	[ -s piped.ppm ]
	head -c 40 c.webp | "$GPUFILT" - -o x.png -q 2>err || st=$?
	[ "${st:-0}" -eq 65 ]
	[ "$(cat err)" = "gpufilt: (stdin): cannot decode WebP: the data ends early (truncated)" ]
}

@test "broken WebP files: exit 65, one line naming the file and WebP, no output" {
	cwebp -quiet "$SAMPLES/coffee.png" -o c.webp
	cwebp -quiet -lossless "$SAMPLES/coffee.png" -o l.webp
	head -c 2000 c.webp >cut.webp
	head -c 2000 l.webp >cutl.webp
	head -c 12 c.webp >header.webp
	{ head -c 12 c.webp; head -c 3000 /dev/urandom; } >garbage.webp
	python3 -c "
d = bytearray(open('c.webp', 'rb').read()); d[12:16] = b'VP8Q'
open('chunk.webp', 'wb').write(bytes(d))"
	for f in cut cutl header garbage chunk; do
		run "$GPUFILT" $f.webp -o out.png
		echo "$f: $status: $output"
		[ "$status" -eq 65 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "${lines[0]}" == "gpufilt: $f.webp: "*WebP* ]]
		[ ! -e out.png ]
		no_temporaries
	done
	run "$GPUFILT" cut.webp -o out.png
	[ "$output" = "gpufilt: cut.webp: cannot decode WebP: the data ends early (truncated)" ]
	# over the limits, from the header
	run "$GPUFILT" c.webp --max-pixels 1000 -o out.png
	[ "$status" -eq 65 ]
	[[ "$output" == "gpufilt: c.webp: WebP image of 600x400 pixels exceeds --max-pixels 1000"* ]]
}

@test "WebP output: 16-bit refused with advice (exit 64, no file); .webp and --format webp; a batch names .webp" {
	run "$GPUFILT" "$SAMPLES/coffee.png" --depth 16 -o x.webp
	[ "$status" -eq 64 ]
	[[ "$output" == *"WebP holds 8-bit samples, not a RGB 16-bit image: put --depth 8 before the output"* ]]
	[ ! -e x.webp ]
	"$GPUFILT" "$SAMPLES/coffee.png" --depth 16 --depth 8 -o x.webp -q
	dwebp -quiet x.webp -ppm -o /dev/null
	"$GPUFILT" "$SAMPLES/coffee.png" -o noext --format webp -q
	[ "$(head -c 12 noext | tail -c 4)" = WEBP ]
	"$GPUFILT" "$SAMPLES/coffee.png" -o UPPER.WEBP -q
	[ "$(head -c 12 UPPER.WEBP | tail -c 4)" = WEBP ]
	run "$GPUFILT" "$SAMPLES/coffee.png" -o x.png --format webp
	[ "$status" -eq 64 ]
	[[ "$output" == *"--format webp contradicts the name's extension"* ]]
	run "$GPUFILT" "$SAMPLES/coffee.png" -o x --format gif
	[ "$status" -eq 64 ]
	[[ "$output" == *"is not png, pgm, ppm, pam, jpeg, tiff or webp"* ]]
	"$GPUFILT" "$SAMPLES/coffee.png" "$SAMPLES/camera.png" -o out/ --format webp --lossless -q
	[ -s out/coffee.webp ]
	[ -s out/camera.webp ]
	dwebp -quiet out/camera.webp -ppm -o cam.ppm
	pngtopam "$SAMPLES/camera.png" | pgmtoppm white | cmp - cam.ppm
}
