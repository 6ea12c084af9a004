#!/usr/bin/env bats
# Hostile and broken inputs, signals and odd outputs: each test is one
# finding of the reliability probe (numbered as in its report), and failed
# before the fix.

load helper

# A file of N bytes of 0xff.
ffs() { head -c "$1" /dev/zero | tr '\0' '\377' >"$2"; }

@test "1: a PPM sample above maxval is an error, not a write past the histogram" {
	printf 'P6\n1 1\n1\n\377\377\377' >a.ppm
	run "$GPUFILT" a.ppm --hist h.csv
	[ "$status" -eq 65 ]
	[ "$output" = "gpufilt: a.ppm: PPM sample above maxval 1 in row 0" ]
	[ ! -e h.csv ]
}

@test "2: broken JPEGs fail alone; a batch goes on and never aborts" {
	ffs 18000 ff.jpg
	python3 - <<'PY'
import os
d = open(os.environ["SAMPLES"] + "/rocket.jpg", "rb").read()
# every DHT segment removed: the scans use tables that were never defined
out, p = bytearray(d[:2]), 2
while p < len(d):
    m, n = d[p + 1], int.from_bytes(d[p + 2:p + 4], "big")
    if m == 0xDA:
        out += d[p:]
        break
    if m != 0xC4:
        out += d[p:p + 2 + n]
    p += 2 + n
open("nodht.jpg", "wb").write(out)
open("cut.jpg", "wb").write(d[:950])
b = bytearray(d)
for i in range(2000, len(b), 97):
    b[i] ^= 0x5A
open("flipped.jpg", "wb").write(b)
PY
	cp "$SAMPLES/coins.png" good.png
	run "$GPUFILT" --jobs 1 --mean 3 -o out/ ff.jpg nodht.jpg cut.jpg flipped.jpg good.png
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"gpufilt: cut.jpg: cannot decode JPEG: "* ]]
	[[ "$output" == *"gpufilt: 1 processed, 4 failed"* || "$output" == *"gpufilt: 2 processed, 3 failed"* ]]
	[ -s out/good.png ]
}

@test "3: a PNG palette index past PLTE is an error, not uninitialised pixels" {
	python3 - <<'PY'
import struct, zlib
def chunk(k, d):
    return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xffffffff)
def png(w, h, depth, plte, raw, interlace=0):
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, 3, 0, 0, interlace))
            + chunk(b"PLTE", plte) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open("pal8.png", "wb").write(png(4, 1, 8, bytes(range(6)), b"\0" + bytes([0, 1, 200, 1])))
# 4-bit, interlaced: one pixel per Adam7 pass in an 8x8 image, index 15 of 3 colours
rows = b""
for p, (x0, y0, dx, dy) in enumerate([(0,0,8,8),(4,0,8,8),(0,4,4,8),(2,0,4,4),(0,2,2,4),(1,0,2,2),(0,1,1,2)]):
    w = len(range(x0, 8, dx))
    for y in range(y0, 8, dy):
        rows += b"\0" + bytes([0xF0 if p == 6 else 0x10] * ((w + 1) // 2))
open("pal4i.png", "wb").write(png(8, 8, 4, bytes(range(9)), rows, 1))
PY
	for f in pal8.png pal4i.png; do
		run "$GPUFILT" $f -o out.png
		echo "$f: $output"
		[ "$status" -eq 65 ]
		[[ "$output" == "gpufilt: $f: PNG palette index outside its 3 colours" || \
			"$output" == "gpufilt: $f: PNG palette index outside its 2 colours" ]]
	done
	[ ! -e out.png ]
}

@test "4: bad CRCs, samples above maxval and short BMP data are refused" {
	"$GPUFILT" "$SAMPLES/coins.png" -o c.png -q
	python3 - <<'PY'
d = bytearray(open("c.png", "rb").read())
ihdr = bytearray(d); ihdr[29] ^= 1; open("crc-ihdr.png", "wb").write(ihdr)
i = d.index(b"IDAT"); n = int.from_bytes(d[i - 4:i], "big")
idat = bytearray(d); idat[i + 4 + n] ^= 0x55; open("crc-idat.png", "wb").write(idat)
import struct
def bmp24(w, h, data):
    hdr = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 0, 0, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54) + hdr + data
open("short.bmp", "wb").write(bmp24(5, 3, bytes(48))[:-10])
PY
	printf 'P5\n2 1\n1\n\001\310' >over.pgm
	for f in crc-ihdr.png crc-idat.png over.pgm short.bmp; do
		run "$GPUFILT" $f -o out.png
		echo "$f: $output"
		[ "$status" -eq 65 ]
	done
	run "$GPUFILT" crc-idat.png -o out.png
	[ "$output" = "gpufilt: crc-idat.png: cannot decode PNG: invalid chunk checksum" ]
	run "$GPUFILT" short.bmp -o out.png
	[ "$output" = "gpufilt: short.bmp: BMP pixel data cut short: 38 of 48 bytes" ]
}

@test "5: a top-down BMP is read, and equals the same image stored bottom-up" {
	python3 - <<'PY'
import random, struct
rng = random.Random(5)
w, h = 5, 3
px = [[bytes(rng.randrange(256) for _ in range(3)) for x in range(w)] for y in range(h)]
def bmp(topdown):
    stride = (w * 3 + 3) // 4 * 4
    data = b""
    for y in (range(h) if topdown else range(h - 1, -1, -1)):
        row = b"".join(px[y][x] for x in range(w))
        data += row + bytes(stride - len(row))
    hdr = struct.pack("<IiiHHIIiiII", 40, w, -h if topdown else h, 1, 24, 0, len(data), 0, 0, 0, 0)
    return b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54) + hdr + data
open("td.bmp", "wb").write(bmp(True))
open("bu.bmp", "wb").write(bmp(False))
PY
	"$GPUFILT" td.bmp -o td.ppm -q
	"$GPUFILT" bu.bmp -o bu.ppm -q
	[ "$(sed -n 2p td.ppm)" = "5 3" ]
	cmp td.ppm bu.ppm
	# and both are the pixels as written, RGB (a BMP stores BGR)
	python3 - <<'PY'
import random
rng = random.Random(5)
px = [[bytes(rng.randrange(256) for _ in range(3)) for x in range(5)] for y in range(3)]
want = b"".join(p[::-1] for row in px for p in row)
assert open("td.ppm", "rb").read().split(b"\n", 3)[3] == want
PY
}

@test "6: memory stays bounded: /dev/zero, JPEG and BMP bombs, a large RGB PNG" {
	command -v /usr/bin/time >/dev/null || skip "/usr/bin/time is not installed"
	[ -z "${GPUFILT_SANITIZER:-}" ] || skip "a sanitizer's shadow memory hides the peak"
	run /usr/bin/time -f "%M" "$GPUFILT" /dev/zero -o out.png --max-file-size 50000000
	[ "$status" -eq 65 ]
	[ "${lines[-1]}" -lt 80000 ] # KB: the limit, not twice it
	python3 - <<'PY'
import os, struct, zlib
d = bytearray(open(os.environ["SAMPLES"] + "/rocket.jpg", "rb").read())
i = d.index(b"\xff\xc0")
d[i + 5:i + 9] = struct.pack(">HH", 16384, 16384)
open("bomb.jpg", "wb").write(bytes(d[:864]))
bmp = b"BM" + struct.pack("<IHHI", 42, 0, 0, 26) + struct.pack("<IHHHH", 12, 1536, 64512, 1, 24)
open("bomb.bmp", "wb").write(bmp + bytes(42 - len(bmp)))
def chunk(k, d):
    return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xffffffff)
w = h = 4096
z = zlib.compressobj(9)
row = b"\0" + bytes(range(256)) * (w * 3 // 256)
data = b"".join(z.compress(row) for _ in range(h)) + z.flush()
open("big.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                            + chunk(b"IDAT", data) + chunk(b"IEND", b""))
PY
	for f in bomb.jpg bomb.bmp; do
		run /usr/bin/time -f "%U %S %M" "$GPUFILT" $f -o out.png
		echo "$f: $output"
		[ "$status" -eq 65 ]
		set -- ${lines[-1]}
		# under 2 s of CPU (user and system: a loaded machine stretches the wall
		# clock, not these; the refusal takes 10 ms) and 60 MB
		awk -v u="$1" -v s="$2" 'BEGIN { exit !(u + s < 2) }'
		[ "$3" -lt 60000 ]
	done
	run /usr/bin/time -f "%M" "$GPUFILT" big.png --stats -q --backend cpu
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" -lt 60000 ] # 48 MB of RGB plus rows, not a second copy
}

@test "7: no temporary file survives TERM or INT, whenever it comes" {
	$REF random 900 700 1 big.pgm
	for i in $(seq 1 16); do
		"$GPUFILT" big.pgm -o out$i.png --mean 5 --png-level 9 --backend cpu -q &
		pid=$!
		sleep 0.0$((RANDOM % 10))
		kill -$([ $((i % 2)) = 0 ] && echo TERM || echo INT) $pid 2>/dev/null || true
		wait $pid || true
	done
	no_temporaries
	for f in out*.png; do [ -e "$f" ] || continue; "$GPUFILT" "$f" --stats -q >/dev/null; done
}

@test "7: a signal the moment a temporary file exists leaves nothing" {
	[ -z "${GPUFILT_SANITIZER:-}" ] || skip "the sanitizer's runtime must be first in LD_PRELOAD"
	cc -shared -fPIC -o shim.so "$BATS_TEST_DIRNAME/shim/kill_on_create.c" -ldl
	mkdir o
	status=0
	LD_PRELOAD=$PWD/shim.so "$GPUFILT" "$SAMPLES/coins.png" -o o/out.png --backend cpu -q || status=$?
	[ "$status" -eq 143 ]
	[ -z "$(ls -A o)" ]
}

@test "7: the exit status after a signal is 128 + N" {
	$REF random 1500 1500 1 big.pgm
	"$GPUFILT" big.pgm -o out.png --mean 5 --mean 5 --mean 5 --png-level 12 --backend cpu -q &
	pid=$!
	sleep 0.1
	kill -TERM $pid
	status=0
	wait $pid || status=$?
	[ "$status" -eq 143 ] || [ "$status" -eq 0 ]
	no_temporaries
}

@test "8: odd outputs: empty names, huge shards, /dev/full, devices, FIFOs, symlinks, files as parents" {
	run "$GPUFILT" "$SAMPLES/coins.png" "$SAMPLES/text.png" -o ""
	[ "$status" -eq 64 ]
	run "$GPUFILT" "$SAMPLES/coins.png" --shard 4294967297/4294967298 --stats
	[ "$status" -eq 64 ]
	run bash -c "'$GPUFILT' '$SAMPLES/coins.png' --stats -q >/dev/full"
	[ "$status" -eq 74 ]
	[[ "$output" == "gpufilt: (stdout): write error: No space left on device" ]]
	# a device is written in place and survives (/dev/null, with no extension)
	"$GPUFILT" "$SAMPLES/coins.png" -o /dev/null --mean 3 -q
	[ -c /dev/null ]
	mkfifo pipe
	cat pipe >from-pipe.png &
	"$GPUFILT" "$SAMPLES/coins.png" -o pipe --mean 3 -q
	wait
	[ -p pipe ]
	"$GPUFILT" from-pipe.png -o /dev/null -q
	# a symlink is written through to its target, and stays a link
	mkdir real
	ln -s real/target.png link.png
	"$GPUFILT" "$SAMPLES/coins.png" -o link.png --mean 3 -q
	[ -L link.png ]
	[ -s real/target.png ]
	no_temporaries real
	: >file
	run "$GPUFILT" "$SAMPLES/coins.png" -o file/out.png
	[ "$status" -eq 73 ]
	[[ "$output" == *"Not a directory" ]]
}

@test "9 and 10: messages name the format and stay whole; no leak per worker" {
	cp "$SAMPLES/rocket.jpg" r.jpg
	head -c 5000 r.jpg >t.jpg
	run "$GPUFILT" t.jpg -o out.png
	[ "$status" -eq 65 ]
	[[ "$output" == "gpufilt: t.jpg: cannot decode JPEG: "* ]]
	for n in 29 33 37 127; do
		head -c $n "$SAMPLES/camera.png" >cut$n.png
		run "$GPUFILT" cut$n.png -o out.png
		[ "$status" -eq 65 ]
		[[ "$output" == "gpufilt: cut$n.png: cannot decode PNG: "?* ]]
	done
	long=$(printf 'x%.0s' $(seq 1 5000))
	run "$GPUFILT" "$long.png" -o out.png
	[ "$status" -eq 66 ]
	[[ "$output" == "gpufilt: xxxx"*"..." || "$output" == *"File name too long" ]]
}

@test "every fuzzing seed and finding decodes, or fails with 65, never worse" {
	n=0
	for f in "$ROOT"/tests/fuzz/corpus/{png,jpeg,bmp,pnm,tiff,webp}/*; do
		status=0
		"$GPUFILT" "$f" -o out.png -q 2>/dev/null || status=$?
		[ "$status" -eq 0 ] || [ "$status" -eq 65 ] || { echo "$f: $status"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 50 ]
	no_temporaries
}
