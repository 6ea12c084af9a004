#!/usr/bin/env bats
# What got in a new user's way (issue "for people and for scripts"), one
# test per numbered finding: plots, repeated reports, messages, output
# formats, directories, machine-readable output, and a run without a GPU.

load helper

# png_size FILE: "W H" from the PNG's IHDR.
png_size() {
	python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(24); print(*struct.unpack(">II", d[16:24]))' "$1"
}

@test "1: plots are 800x450 with --plot-size to change it; the SVG names the file, the axes and its ticks" {
	"$GPUFILT" "$SAMPLES/moon.png" --hist h.png --hist h.svg --colsum c.png --plot-size 640x360 \
		--rowsum r.png -q
	[ "$(png_size h.png)" = "800 450" ]
	[ "$(png_size c.png)" = "800 450" ]
	[ "$(png_size r.png)" = "640 360" ]
	xmllint --noout h.svg
	grep -q '>Histogram of .*moon.png (512x512)</text>' h.svg
	grep -q '>value</text>' h.svg
	grep -q '>pixels</text>' h.svg
	# five to ten round ticks on each axis: 0, 50, ..., 250 and 0, 5000, ...
	for t in 0 50 100 150 200 250 5000 10k 15k 20k; do grep -q ">$t</text>" h.svg || { echo "no tick $t"; false; }; done
	"$GPUFILT" "$SAMPLES/moon.png" --hist-log --hist l.svg -q
	xmllint --noout l.svg
	grep -q '>10⁴</text>' l.svg # log ticks are powers of ten
	run ! grep -q '1e5' l.svg
	"$GPUFILT" "$SAMPLES/coffee.png" --hist rgb.svg -q
	for k in red green blue; do grep -q ">$k</text>" rgb.svg || { echo "no legend $k"; false; }; done
	"$GPUFILT" "$SAMPLES/text.png" --colsum p.svg -q
	grep -q '>column</text>' p.svg
	for t in 0 100 200 300 400; do grep -q ">$t</text>" p.svg || { echo "no tick $t"; false; }; done
}

@test "1: a histogram plot renders as the reference image a person checked (DejaVu Sans)" {
	[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || skip "fonts-dejavu-core missing"
	"$GPUFILT" "$SAMPLES/moon.png" --hist h.png -q
	[ "$(png_size h.png)" = "800 450" ]
	"$GPUFILT" h.png -o got.pgm --gray -q
	"$GPUFILT" "$ROOT/tests/data/plots/hist-moon.png" -o want.pgm --gray -q
	# cairo and freetype versions move anti-aliased edges: at most 1% of
	# the pixels may differ by more than 64 levels of luma
	python3 - <<'PY'
def pgm(p):
    d = open(p, "rb").read().split(b"\n", 3)
    return d[1], d[3]
(sa, a), (sb, b) = pgm("got.pgm"), pgm("want.pgm")
assert sa == sb, (sa, sb)
bad = sum(abs(x - y) > 64 for x, y in zip(a, b))
print("pixels off by more than 64: %d of %d" % (bad, len(a)))
assert bad <= len(a) // 100
PY
}

@test "2: modifiers apply to the reports after them; statistics and the histogram come once" {
	run "$GPUFILT" "$SAMPLES/moon.png" --hist a.csv --hist b.json --hist c.png --hist-log \
		--hist d.png --stats
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c '^mean=')" -eq 1 ]
	[ "$(echo "$output" | grep -c '^  hist ')" -eq 1 ] # one hist step in the table
	[[ "$output" != *"gpufilt: a.csv"* ]]
	"$GPUFILT" "$SAMPLES/moon.png" --hist lin.png -q
	cmp c.png lin.png # given before --hist-log: linear
	run ! cmp -s c.png d.png
	run "$GPUFILT" "$SAMPLES/moon.png" --hist h.png --hist-log
	[ "$status" -eq 64 ] # a modifier with no report after it
}

@test "3: a broken JPEG's message names JPEG; a collision names both inputs" {
	head -c 3000 "$SAMPLES/rocket.jpg" >t.jpg
	run "$GPUFILT" t.jpg -o o.png
	[ "$status" -eq 65 ]
	[[ "$output" == "gpufilt: t.jpg: cannot decode JPEG: "* ]]
	mkdir a b
	cp "$SAMPLES/camera.png" a/x.png
	cp "$SAMPLES/moon.png" b/x.png
	run "$GPUFILT" a/x.png b/x.png -o 'out/{stem}.png'
	[ "$status" -eq 64 ]
	[[ "$output" == *"a/x.png and b/x.png both map to this output name"* ]]
}

@test "4: unsupported or contradicting output formats are refused; -o - writes PNG" {
	run "$GPUFILT" "$SAMPLES/camera.png" -o y.gif
	[ "$status" -eq 64 ]
	[[ "$output" == *"gif images are not written; gpufilt writes PNG (.png), PGM (.pgm), PPM (.ppm), PAM (.pam), JPEG (.jpg, .jpeg), TIFF (.tif, .tiff) and WebP (.webp)"* ]]
	run "$GPUFILT" "$SAMPLES/camera.png" -o y.jpg --format png
	[ "$status" -eq 64 ]
	[[ "$output" == *"--format png contradicts the name's extension"* ]]
	[ ! -e y.jpg ]
	"$GPUFILT" "$SAMPLES/camera.png" -o - -q >out
	[ "$(head -c 4 out | od -An -c | tr -d ' ')" = "211PNG" ]
}

@test "5: single-file and batch runs both create missing output directories" {
	"$GPUFILT" "$SAMPLES/camera.png" -o one/two/y.png -q
	[ -s one/two/y.png ]
	"$GPUFILT" "$SAMPLES/camera.png" "$SAMPLES/moon.png" -o 'three/four/{stem}.png' -q
	[ -s three/four/camera.png ]
	[ -s three/four/moon.png ]
}

@test "6: JSON names each failed file and the summary lists them; skipped files are not a rate" {
	head -c 3000 "$SAMPLES/rocket.jpg" >t.jpg
	run "$GPUFILT" "$SAMPLES/camera.png" t.jpg -o 'j/{stem}.png' --timings json
	[ "$status" -eq 65 ]
	echo "$output" | grep -q '^{"input":"t.jpg","status":65,"error":"t.jpg: cannot decode JPEG: '
	echo "$output" | grep '"summary"' | grep -q '"failures":\[{"input":"t.jpg","status":65}\]'
	run "$GPUFILT" "$SAMPLES/camera.png" "$SAMPLES/moon.png" -o 'j/{stem}.png' --skip-existing
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 processed, 0 failed, 1 skipped"* ]]
	run "$GPUFILT" "$SAMPLES/camera.png" "$SAMPLES/moon.png" -o 'j/{stem}.png' --skip-existing
	# the wall time, not a rate; under a sanitizer or load it may pass 0.00 s
	[[ "$output" =~ 0\ processed,\ 0\ failed,\ 2\ skipped\ \([0-9]+\.[0-9]{2}\ s\) ]]
	[[ "$output" != *"images/s"* ]]
}

@test "7: without a GPU the notice comes once and no GPU row; the demo names and lists what it wrote" {
	[ -z "${GPUFILT_HAS_GPU:-}" ] || skip "a GPU is present"
	"$GPUFILT" --backend cuda "$SAMPLES/camera.png" -o x.png 2>/dev/null && skip "a GPU is present"
	run "$GPUFILT" "$SAMPLES/camera.png" "$SAMPLES/moon.png" -o 'o/{stem}.png' --mean 3
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | grep -c 'no usable GPU')" -le 1 ]
	[[ "$output" != *"gpu start"* ]]
	PATH="$ROOT:$PATH" DEMO_OUT="$T/demo" run sh "$ROOT/samples/demo.sh"
	[ "$status" -eq 0 ]
	for f in thumbs/coffee.jpg thumbs/rocket.jpg astronaut-gaussian3.png moon-unsharp.png \
		coins-edges.png hubble.tif rocket.webp moon-hist.png text-rows.png astronaut-mean5.png; do
		[ -s "demo/$f" ] || { echo "missing $f"; false; }
		grep -qx -- "  -> $T/demo/$f" <<<"$output" || { echo "not named when written: $f"; false; }
		grep -qx -- "  $T/demo/$f" <<<"$output" || { echo "not listed: $f"; false; }
	done
	# thumbnails: JPEG, inside 160x160; the TIFF and the WebP kept the photos' metadata
	"$GPUFILT" demo/thumbs/coffee.jpg -o c.pam -q
	[ "$(sed -n 2,3p c.pam | tr '\n' ' ')" = "WIDTH 160 HEIGHT 107 " ]
	[ "$(exiftool -s -s -s -Software demo/hubble.tif)" = "Adobe Photoshop CS5 Macintosh" ]
	[ "$(exiftool -s -s -s -ProfileDescription demo/rocket.webp)" = "Adobe RGB (1998)" ]
	[[ "$output" == *"Adobe RGB (1998)"* ]]
}
