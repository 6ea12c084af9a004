#!/usr/bin/env bats
# TIFF in and out: tifffile's, tiffcp's and hand-made flavours read exactly
# (tests/cli/oracle_tiff.py), what gpufilt writes read back by tifffile and
# checked by tiffinfo, EXIF in its EXIF and GPS directories (and
# oracle_tiff.py's EXIF from JPEG, PNG and WebP), --compress and --page,
# stdin and stdout, a batch of TIFFs decoded in parallel, and the refusals:
# exit 65, one line, no output.

load helper

# A random TIFF by tifffile: rand_tiff W H CHANNELS BITS OUT [tifffile keyword=value...]
rand_tiff() {
	python3 - "$RANDOM" "$@" <<'PY'
import sys
import numpy as np
import tifffile
seed = int(sys.argv.pop(1))
w, h, c, bits, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
kw = dict(eval("dict(%s)" % ",".join(sys.argv[6:])))
a = np.random.default_rng(seed).integers(0, 1 << bits, size=(h, w, c)).astype(np.uint16 if bits == 16 else np.uint8)
kw.setdefault("photometric", "rgb" if c >= 3 else "minisblack")
if c in (2, 4):
    kw.setdefault("extrasamples", [2])
tifffile.imwrite(out, a[:, :, 0] if c == 1 else a, **kw)
PY
}

# same_pixels A B: two images (TIFF by tifffile, PAM/PNM by layouts.py) hold the same samples
same_pixels() {
	python3 - "$1" "$2" <<'PY'
import os, sys
import numpy as np
import tifffile
sys.path.insert(0, os.environ["ROOT"] + "/tests/cli")
from layouts import read_pnm
def load(p):
    if p.endswith((".tif", ".tiff")) or open(p, "rb").read(2) in (b"II", b"MM"):
        a = tifffile.imread(p).astype(np.int64)
        return a.reshape(a.shape[0], a.shape[1], -1)
    return read_pnm(p)[0]
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a.shape == b.shape and (a == b).all(), (a.shape, b.shape)
PY
}

# refused FILE [ARGS...]: exit 65, one stderr line "gpufilt: FILE: TIFF ...", no output
refused() {
	local f=$1
	shift
	run "$GPUFILT" "$f" -o out.png "$@"
	echo "$output"
	[ "$status" -eq 65 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "gpufilt: $f: TIFF "* ]]
	[ ! -e out.png ]
	no_temporaries
}

@test "TIFF flavours read exactly; every layout written with every --compress reads back (oracle_tiff.py)" {
	run python3 "$ROOT/tests/cli/oracle_tiff.py" "$GPUFILT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}

@test ".tif, .tiff and --format tiff write TIFF, Deflate by default; tiffinfo reads it; the bytes repeat" {
	rand_tiff 61 17 4 16 in.tif
	"$GPUFILT" in.tif -o a.tif -q
	"$GPUFILT" in.tif -o b.TIFF -q
	"$GPUFILT" in.tif -o c --format tiff -q
	"$GPUFILT" in.tif -o d.tif -q
	cmp a.tif b.TIFF
	cmp a.tif c
	cmp a.tif d.tif
	tiffinfo a.tif >info.txt 2>err.txt
	[ ! -s err.txt ]
	grep -q "Compression Scheme: AdobeDeflate" info.txt
	grep -q "Predictor: horizontal differencing" info.txt
	grep -q "Extra Samples: 1<unassoc-alpha>" info.txt
	same_pixels in.tif a.tif
	for c in none lzw packbits; do
		"$GPUFILT" in.tif -o $c.tif --compress $c -q
		tiffinfo $c.tif 2>err.txt | grep "Compression Scheme"
		[ ! -s err.txt ]
	done
	tiffinfo none.tif | grep -q "Compression Scheme: None"
	tiffinfo lzw.tif | grep -q "Compression Scheme: LZW"
	tiffinfo packbits.tif | grep -q "Compression Scheme: PackBits"
	# a stage between: the TIFF holds what it gives
	"$GPUFILT" in.tif -o flip.pam --flip -q
	"$GPUFILT" in.tif -o flip.tif --flip --compress lzw -q
	"$GPUFILT" flip.tif -o flip2.pam -q
	cmp flip.pam flip2.pam
}

@test "EXIF in a TIFF output: one image directory pointing to its EXIF and GPS directories; tiffinfo -D reads it; the bytes repeat" {
	convert "$SAMPLES/coffee.png" -resize 10% in.jpg
	exiftool -q -q -overwrite_original -Make=Maker -Model=M1 -DateTimeOriginal="2022:02:02 02:02:02" \
		-Orientation#=8 -GPSLatitude=45.5 -GPSLatitudeRef=S -ExposureTime=1/250 in.jpg
	"$GPUFILT" in.jpg -o a.tif -q
	"$GPUFILT" in.jpg -o b.tif -q
	cmp a.tif b.tif
	tiffinfo -D a.tif >info.txt 2>err.txt
	[ ! -s err.txt ]
	[ "$(grep -c '^=== TIFF directory' info.txt)" -eq 1 ]
	grep -q "EXIF directory" info.txt
	grep -q "GPS directory" info.txt
	grep -q "Make: Maker" info.txt
	grep -q "DateTimeOriginal: 2022:02:02 02:02:02" info.txt
	python3 - <<'PY'
import tifffile
with tifffile.TiffFile("a.tif") as t:
    assert len(t.pages) == 1
    p = t.pages[0]
    assert p.tags["Orientation"].value == 8
    assert p.tags["ExifTag"].value["DateTimeOriginal"] == "2022:02:02 02:02:02"
    assert p.tags["GPSTag"].value["GPSLatitudeRef"] == "S"
PY
	# the pixels are those of the file without EXIF
	"$GPUFILT" in.jpg -o plain.tif --strip -q
	"$GPUFILT" a.tif -o a.pam -q
	"$GPUFILT" plain.tif -o plain.pam -q
	cmp a.pam plain.pam
	[ "$(tiffinfo plain.tif 2>/dev/null | grep -c "EXIF\|Make")" -eq 0 ]
}

@test "a tiled LZW TIFF made by tiffcp reads as the strips it came from" {
	rand_tiff 100 70 3 8 plain.tif rowsperstrip=7
	tiffcp -c lzw:2 -t -w 32 -l 16 plain.tif tiled.tif
	tiffinfo tiled.tif | grep -q "Tile Width: 32"
	"$GPUFILT" tiled.tif -o got.ppm -q
	same_pixels plain.tif got.ppm
}

@test "stdin and stdout: TIFF in through a pipe, TIFF out to a pipe, a large one with its directory last" {
	rand_tiff 33 9 2 8 in.tif
	"$GPUFILT" - -o - --format tiff -q <in.tif >out.tif
	same_pixels in.tif out.tif
	cat in.tif | "$GPUFILT" - -o got.pam -q
	same_pixels in.tif got.pam
	# 24 MB uncompressed, its directory after the data: read whole from a pipe
	python3 -c "
import sys; sys.path.insert(0, '$ROOT/tests/cli')
import numpy as np
from layouts import write_pam
write_pam('big.pam', np.random.default_rng(int(sys.argv[1])).integers(0, 256, size=(2000, 4000, 3)), 8)" "$RANDOM"
	"$GPUFILT" big.pam -o big.tif --compress none -q
	python3 -c "
import struct
d = open('big.tif', 'rb').read(8)
assert struct.unpack('<I', d[4:])[0] > 16 << 20"
	cat big.tif | "$GPUFILT" - -o big2.pam -q
	cmp big.pam big2.pam
}

@test "--page picks a page; one past the last, or --page on a PNG, is refused" {
	python3 - "$RANDOM" <<'PY'
import sys
import numpy as np
import tifffile
r = np.random.default_rng(int(sys.argv[1]))
with tifffile.TiffWriter("pages.tif") as t:
    for i in range(3):
        t.write(r.integers(0, 256, size=(4 + i, 5, 3)).astype(np.uint8), photometric="rgb")
PY
	for p in 0 1 2; do
		"$GPUFILT" pages.tif --page $p -o p$p.ppm -q
		[ "$(sed -n 2p p$p.ppm)" = "5 $((4 + p))" ]
	done
	"$GPUFILT" pages.tif -o default.ppm -q
	cmp default.ppm p0.ppm
	refused pages.tif --page 3
	[ "$output" = "gpufilt: pages.tif: TIFF has 3 pages; --page 3 does not exist" ]
	"$GPUFILT" p0.ppm -o x.png -q
	run "$GPUFILT" x.png --page 1 -o y.png
	[ "$status" -eq 65 ]
	[ "$output" = "gpufilt: x.png: PNG has one page; --page 1 does not exist" ]
	run "$GPUFILT" x.png --page -1 -o y.png
	[ "$status" -eq 64 ]
	[[ "$output" == *"--page"* ]]
}

@test "--compress takes none, lzw, deflate, packbits; anything else is a usage error" {
	rand_tiff 3 3 1 8 in.tif
	run "$GPUFILT" in.tif -o out.tif --compress zstd
	[ "$status" -eq 64 ]
	[[ "$output" == *"--compress: 'zstd' is not one of none, lzw, deflate, packbits"* ]]
	[ ! -e out.tif ]
	"$GPUFILT" --help | grep -q -- "--compress none|lzw|deflate|packbits"
	"$GPUFILT" --help | grep -q -- "--page N"
}

@test "broken and unsupported TIFFs: exit 65, one line naming the problem, no output" {
	rand_tiff 40 30 3 8 good.tif rowsperstrip=4
	python3 - "$RANDOM" <<'PY'
import struct, sys
import numpy as np
import tifffile
d = open("good.tif", "rb").read()
open("cut.tif", "wb").write(d[:len(d) // 2])
open("header.tif", "wb").write(d[:8])
r = np.random.default_rng(int(sys.argv[1]))
tifffile.imwrite("float.tif", r.random((5, 5)).astype(np.float32))
tifffile.imwrite("signed.tif", r.integers(-5, 5, size=(5, 5)).astype(np.int16))
tifffile.imwrite("cmyk.tif", r.integers(0, 256, size=(5, 5, 4)).astype(np.uint8), photometric="separated")
tifffile.imwrite("u32.tif", r.integers(0, 256, size=(5, 5)).astype(np.uint32))
# three pages, the last one's next directory pointing back at the first
with tifffile.TiffWriter("loop.tif") as t:
    for i in range(3):
        t.write(r.integers(0, 256, size=(4, 4)).astype(np.uint8))
b = bytearray(open("loop.tif", "rb").read())
first = off = struct.unpack("<I", b[4:8])[0]
while off:
    last = off
    n = struct.unpack("<H", b[off:off + 2])[0]
    off = struct.unpack("<I", b[off + 2 + 12 * n:off + 6 + 12 * n])[0]
n = struct.unpack("<H", b[last:last + 2])[0]
b[last + 2 + 12 * n:last + 6 + 12 * n] = struct.pack("<I", first)
open("loop.tif", "wb").write(b)
# a strip past the end of the file
with tifffile.TiffFile("good.tif") as t:
    tag = t.pages[0].tags["StripOffsets"]
b = bytearray(d)
at = tag.valueoffset
b[at:at + 4] = struct.pack("<I", len(d) + 4096)
open("past.tif", "wb").write(b)
PY
	refused cut.tif
	refused header.tif
	refused float.tif
	[[ "$output" == *"floating-point samples (SampleFormat 3)"* ]]
	refused signed.tif
	[[ "$output" == *"signed integer"* ]]
	refused cmyk.tif
	[[ "$output" == *"CMYK"* ]]
	refused u32.tif
	[[ "$output" == *"32-bit"* ]]
	refused loop.tif
	[[ "$output" == *"loop"* ]]
	refused past.tif
	[[ "$output" == *"strip 0"* ]]
	# over the limits, from the header
	refused good.tif --max-pixels 1199
	[[ "$output" == *"TIFF image of 40x30 pixels exceeds --max-pixels 1199"* ]]
}

@test "a batch of TIFFs decoded in parallel: each error names its own file" {
	for i in 1 2 3 4 5 6; do rand_tiff 50 40 3 8 g$i.tif compression=\"zlib\"; done
	printf 'II*\0\010\0\0\0' >bad1.tif
	head -c 500 g1.tif >bad2.tif
	run "$GPUFILT" g1.tif bad1.tif g2.tif g3.tif bad2.tif g4.tif g5.tif g6.tif -o out/ --jobs 4
	echo "$output"
	[ "$status" -eq 65 ]
	[ "$(grep -c '^gpufilt: bad1.tif: TIFF ' <<<"$output")" -eq 1 ]
	[ "$(grep -c '^gpufilt: bad2.tif: TIFF ' <<<"$output")" -eq 1 ]
	[ "$(grep -c ': TIFF ' <<<"$output")" -eq 2 ]
	for i in 1 2 3 4 5 6; do
		"$GPUFILT" out/g$i.png -o g$i.pam -q
		same_pixels g$i.tif g$i.pam
	done
}
