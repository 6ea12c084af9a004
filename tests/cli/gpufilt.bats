#!/usr/bin/env bats
# gpufilt's command line: options, exit statuses, stdin/stdout, atomic
# output and the man page's examples. Runs with or without a GPU.

load helper

@test "--help prints the usage on stdout and exits 0" {
	run "$GPUFILT" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == usage:* ]]
	[[ "$output" == *"--mean K|WxH"* ]]
	[[ "$output" == *"--border MODE"* ]]
}

@test "--version prints the version" {
	run "$GPUFILT" --version
	[ "$status" -eq 0 ]
	[ "$output" = "gpufilt 0.2.0" ]
}

@test "usage errors exit 64 with a message and the usage line" {
	for args in "" "--bogus x.png" "x.png --mean 4 -o y.png" "x.png --border wrap -o y.png" \
		"x.png --border constant=65536 -o y.png" "x.png --png-level 13 -o y.png" \
		"x.png --backend gpu -o y.png" "x.png --device -1 -o y.png" "x.png" \
		"x.png -o y.gif" "x.png -o y.jpg --format png" "x.png --max-pixels 0 -o y.png" "x.png y.png -o -" \
		"x.png - -o out/" "x.png --shard 0/2 -o y.png" "x.png --shard 3/2 -o y.png" \
		"x.png --jobs 0 -o y.png" "x.png -o {bogus}.png" \
		"x.png --timings xml -o y.png" "x.png --variant fast --mean 3 -o y.png" "x.png -o" \
		"x.png --shard 4294967297/4294967298 -o y.png" "x.png --hist h.png --hist-log"; do
		run "$GPUFILT" $args
		echo "args: $args -> $status: $output"
		[ "$status" -eq 64 ]
		[[ "${lines[0]}" == gpufilt:* ]]
		[[ "${lines[1]}" == usage:* ]]
	done
}

@test "an empty output name is a usage error, in single and batch mode" {
	run "$GPUFILT" x.png -o ""
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "gpufilt: an output name is empty" ]
	run "$GPUFILT" a.png b.png -o ""
	[ "$status" -eq 64 ]
	[ ! -e /a.png ]
	[ ! -e /b.png ]
}

@test "a missing input exits 66 with gpufilt: FILE: reason" {
	run "$GPUFILT" nope.png -o out.png
	[ "$status" -eq 66 ]
	[ "$output" = "gpufilt: nope.png: cannot open: No such file or directory" ]
	[ ! -e out.png ]
}

@test "a directory as input exits 66" {
	mkdir d
	run "$GPUFILT" d -o out.png
	[ "$status" -eq 66 ]
	[ "$output" = "gpufilt: d: is a directory" ]
}

@test "undecodable, truncated and empty inputs exit 65" {
	echo "not an image" >bad.png
	head -c 20000 "$SAMPLES/camera.png" >trunc.png
	: >empty.png
	printf 'P5\n4 4\n255\n\001\002' >short.pgm
	for f in bad.png trunc.png empty.png short.pgm; do
		run "$GPUFILT" "$f" -o out.png
		echo "$f -> $status: $output"
		[ "$status" -eq 65 ]
		[[ "$output" == "gpufilt: $f: "* ]]
		[ ! -e out.png ]
	done
}

@test "--max-pixels and --max-file-size refuse large inputs with 65" {
	run "$GPUFILT" "$SAMPLES/camera.png" -o out.png --max-pixels 262143
	[ "$status" -eq 65 ]
	[[ "$output" == *"512x512 pixels exceeds --max-pixels 262143" ]]
	run "$GPUFILT" "$SAMPLES/camera.png" -o out.png --max-pixels 262144 -q
	[ "$status" -eq 0 ]
	run "$GPUFILT" "$SAMPLES/camera.png" -o out2.png --max-file-size 1000
	[ "$status" -eq 65 ]
	[[ "$output" == *"exceeds --max-file-size 1000" ]]
	run bash -c "'$GPUFILT' - -o out2.png --max-file-size 1000 < '$SAMPLES/camera.png'"
	[ "$status" -eq 65 ]
	[ ! -e out2.png ]
}

@test "--mean equals a brute-force reference for every size and border" {
	for size in "1 1" "1 6" "6 1" "2 3" "13 7" "130 9"; do
		$REF random $size $RANDOM in.pgm
		for k in 3 5; do
			for border in replicate reflect101 constant constant=$((RANDOM % 256)); do
				"$GPUFILT" in.pgm -o out.pgm --mean $k --border $border -q
				$REF mean $k $border in.pgm want.pgm
				$REF cmp out.pgm want.pgm || { echo "size $size k $k $border"; false; }
			done
		done
	done
}

@test "stages run in order and repeat: two 3x3 passes" {
	$REF random 40 30 $RANDOM in.pgm
	"$GPUFILT" in.pgm -o twice.pgm --mean 3 --mean 3 -q
	$REF mean 3 replicate in.pgm once.pgm
	$REF mean 3 replicate once.pgm want.pgm
	$REF cmp twice.pgm want.pgm
}

@test "--compare checks the CPU path against the gold on every stage" {
	$REF random 300 77 $RANDOM in.pgm
	run "$GPUFILT" in.pgm --mean 5 --threshold otsu --rotate 90 --flop --hist h.csv --colsum c.csv \
		--rowsum r.csv --compare --backend cpu --timings json
	[ "$status" -eq 0 ]
	echo "${lines[-1]}" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["compare"]
steps = sorted(set(r["step"] for r in rows))
assert steps == sorted(["mean 5", "threshold otsu", "rotate 90", "flop", "hist", "colsum", "rowsum"]), steps
for s in steps:
    mine = [r for r in rows if r["step"] == s]
    assert [r["variant"] for r in mine] == ["gold", "cpu"], mine
    assert mine[0]["check"] == "reference" and mine[1]["check"] == "match", mine
'
}

@test "stdin to stdout equals file to file" {
	"$GPUFILT" "$SAMPLES/rocket.jpg" -o file.ppm --mean 3 -q
	"$GPUFILT" - -o - --format ppm --mean 3 -q <"$SAMPLES/rocket.jpg" >pipe.ppm
	cmp file.ppm pipe.ppm
	head -c 15 pipe.ppm | grep -q '^P6'
	"$GPUFILT" - -o - --format pgm --gray -q <"$SAMPLES/rocket.jpg" >pipe.pgm
	head -c 15 pipe.pgm | grep -q '^P5'
}

@test "PNG output decodes to the same pixels at every level" {
	"$GPUFILT" "$SAMPLES/coins.png" -o want.pgm --mean 5 -q
	for level in 0 1 2 6 12; do
		"$GPUFILT" "$SAMPLES/coins.png" -o l$level.png --mean 5 --png-level $level -q
		"$GPUFILT" l$level.png -o l$level.pgm -q
		cmp want.pgm l$level.pgm
	done
	[ "$(stat -c %s l0.png)" -gt "$(stat -c %s l12.png)" ]
}

@test "colour keeps its channels, 16 bits its depth; --gray and --depth convert" {
	"$GPUFILT" "$SAMPLES/astronaut.png" -o a.ppm -q
	head -c 20 a.ppm | grep -q '^P6'
	[ "$(stat -c %s a.ppm)" -eq $((15 + 512 * 512 * 3)) ]
	"$GPUFILT" "$SAMPLES/astronaut.png" -o a.pgm --gray -q
	head -c 20 a.pgm | grep -q '^P5'
	[ "$(stat -c %s a.pgm)" -eq $((15 + 512 * 512)) ]
	$REF pgm16 in16.pgm
	run "$GPUFILT" in16.pgm -o out.pgm
	[ "$status" -eq 0 ]
	[ -z "$output" ] || [[ "$output" != *"reduced"* ]]
	head -c 20 out.pgm | grep -q '65535'
	cmp in16.pgm out.pgm
	"$GPUFILT" in16.pgm -o out8.pgm --depth 8 -q
	[ "$(tail -c 3 out8.pgm | od -An -tu1 | tr -s ' ')" = " 255 128 0" ]
}

@test "without a GPU: one notice at most, no GPU row; cuda exits 69" {
	if "$GPUFILT" "$SAMPLES/text.png" -o g.png --backend cuda -q 2>/dev/null; then
		skip "a GPU is present"
	fi
	run "$GPUFILT" "$SAMPLES/text.png" -o cuda.png --backend cuda
	[ "$status" -eq 69 ]
	[[ "$output" == "gpufilt: no usable GPU"*"(--backend cuda)" ]]
	[ ! -e cuda.png ]
	# a single small image: auto picks the CPU without starting CUDA, and says why
	"$GPUFILT" "$SAMPLES/text.png" -o auto.png --mean 3 2>err.txt
	[ "$(grep -c 'using the CPU backend' err.txt)" -eq 0 ]
	grep -q '^  backend: auto: the CPU' err.txt
	grep -q '^  mean 3 *cpu ' err.txt
	run ! grep -q 'gpu start' err.txt
	# forced onto the GPU, or a batch: CUDA is tried, and the notice comes once
	"$GPUFILT" "$SAMPLES/text.png" -o shared.png --mean 3 --shared 2>err.txt
	[ "$(grep -c 'using the CPU backend' err.txt)" -eq 1 ]
	run ! grep -q 'gpu start' err.txt
	"$GPUFILT" "$SAMPLES/text.png" "$SAMPLES/coins.png" -o b/ --mean 3 --jobs 2 \
		--timings json 2>err.txt
	[ "$(grep -c 'using the CPU backend' err.txt)" -eq 1 ]
	run ! grep -q 'gpu start' err.txt
	# a batch's workers do not wait for the GPU's start-up: a file says why it ran
	# on the CPU, whether it came before the start-up failed or after
	grep '^{"input"' err.txt | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin]
assert len(lines) == 2, lines
for r in lines:
    assert r["backend"] == "cpu", r
    assert r["backend_reason"] in ("no usable GPU", "auto: the CPU, before CUDA was ready"), r
'
	"$GPUFILT" "$SAMPLES/text.png" "$SAMPLES/coins.png" -o c/ --mean 3 --backend cpu -q
	cmp b/text.png c/text.png
	cmp b/coins.png c/coins.png
	"$GPUFILT" "$SAMPLES/text.png" -o quiet.png --mean 3 -q 2>err.txt
	[ ! -s err.txt ]
	cmp auto.png quiet.png
	cmp auto.png shared.png
}

@test "the timing table accounts for the run: its rows add up to its total" {
	# on the CPU the rows are laps, each from the end of the one before: they
	# add up to the total to the JSON's 6 decimals however the process is
	# scheduled (a loaded machine, a sanitizer), and time outside them shows
	$REF random 1500 1000 $RANDOM in.pgm
	cp in.pgm in2.pgm
	for args in "in.pgm --mean 5" "in.pgm --mean 3 --hist h.csv --rotate 90" \
		"in.pgm --threshold otsu --colsum c.png" \
		"in.pgm in2.pgm --mean 5 --hist {stem}.csv --jobs 2 --backend cpu"; do
		"$GPUFILT" $args -o 'out-{stem}.png' --timings json 2>err.txt
		grep '^{"input"' err.txt | python3 -c '
import json, sys
batch = "--jobs" in sys.argv[1]
files = [json.loads(l) for l in sys.stdin]
assert len(files) == (2 if batch else 1), files
for r in files:
    assert r["backend"] == "cpu", r
    rows = {s["step"]: s["ms"] for s in r["steps"]}
    assert "read" in rows and "decode" in rows and "encode" in rows, rows
    assert batch or "start-up" in rows, rows
    total = rows.pop("total")
    assert abs(sum(rows.values()) - total) <= 1e-4, (sum(rows.values()), total, rows)
' "$args"
	done
}

@test "large PNGs deflate on all cores into one valid stream, any size" {
	command -v convert >/dev/null || skip "ImageMagick missing"
	for size in "1 1" "1 5000" "5000 1" "1500 1000" "2049 1031"; do
		$REF random $size $RANDOM in.pgm
		for level in 0 1 2 3 6; do
			"$GPUFILT" in.pgm -o out.png --png-level $level -q
			convert out.png -depth 8 check.pgm # libpng, independent of gpufilt
			$REF cmp in.pgm check.pgm || { echo "$size level $level"; false; }
		done
	done
	# several IDAT chunks for a large image at a low level, one otherwise
	python3 -c "
import struct
def idats(p):
    d, n, i = open(p, 'rb').read(), 0, 8
    while i < len(d):
        l = struct.unpack('>I', d[i:i + 4])[0]
        n += d[i + 4:i + 8] == b'IDAT'
        i += 12 + l
    return n
import subprocess
assert idats('out.png') == 1  # level 6: libdeflate, whole
"
	# from 12 MiB of rows at levels 1 and 2 (igzip): 1 MiB segments deflated in parallel
	$REF random 4100 3100 $RANDOM in.pgm
	"$GPUFILT" in.pgm -o seg.png --png-level 1 -q
	convert seg.png -depth 8 check.pgm
	$REF cmp in.pgm check.pgm
	python3 -c "
import struct
d, n, i = open('seg.png', 'rb').read(), 0, 8
while i < len(d):
    l = struct.unpack('>I', d[i:i + 4])[0]
    n += d[i + 4:i + 8] == b'IDAT'
    i += 12 + l
assert n == 13, n  # 4100 x 3100 rows (12.1 MiB): thirteen 1 MiB segments
"
	# the bytes do not depend on the number of threads
	OMP_NUM_THREADS=1 "$GPUFILT" in.pgm -o seg1.png --png-level 1 -q
	cmp seg.png seg1.png
}

@test "a large image's PNG encoding reads no uninitialised memory (valgrind)" {
	# igzip's stateless deflate read parts of its stream and level buffer
	# that isal_deflate_stateless_init leaves unset, so the bytes of a large
	# PNG could change between runs (the pixels did not)
	[ -z "${GPUFILT_SANITIZER:-}" ] || skip "valgrind cannot run a sanitizer's build (make test runs it)"
	$REF random 4100 3100 $RANDOM in.pgm
	for level in 1 2; do
		OMP_NUM_THREADS=2 valgrind -q --error-exitcode=99 \
			"$GPUFILT" in.pgm -o v$level.png --png-level $level -q
		convert v$level.png -depth 8 check.pgm
		$REF cmp in.pgm check.pgm
	done
}

@test "PNG bytes are the same on every machine, thread count and backend" {
	# igzip dispatches on the CPU's instruction set; these SHA-256s were
	# written on an AMD EPYC (AVX-512) and checked on the H100 machine's Xeon
	# (--strip: astronaut.png's iCCP profile is otherwise kept, a chunk more)
	"$GPUFILT" "$SAMPLES/astronaut.png" --strip -o a.png -q
	"$GPUFILT" "$SAMPLES/moon.png" --depth 16 -o m.png --png-level 2 -q
	$REF random 4100 3100 7 in.pgm
	"$GPUFILT" in.pgm --mean 5 -o s.png -q # 13 segments
	OMP_NUM_THREADS=1 "$GPUFILT" in.pgm --mean 5 -o s1.png -q
	cmp s.png s1.png
	sha256sum a.png m.png s.png >got
	cat >want <<-EOF
		c900143801809eb847e1bafeb429b79d8f54bf32f1551766be60ca93c6474a23  a.png
		39cce60559b6f54ee6de0020246a87828ee3a6f66a9d38250dd6b9c4de52558c  m.png
		885654c3317cc31d9221a4da2932122d1269b487b28df225f7faffd94ad41071  s.png
	EOF
	diff want got
	# and they decode, by libpng (ImageMagick) and Pillow, to the image
	"$GPUFILT" in.pgm --mean 5 -o want.pgm -q
	convert s.png -depth 8 check.pgm
	cmp want.pgm check.pgm
	python3 -c "
from PIL import Image
import numpy as np
a = np.asarray(Image.open('m.png'))
b = np.asarray(Image.open('$SAMPLES/moon.png').convert('L')).astype(np.uint16) * 257
assert a.dtype == np.uint16 or a.dtype == np.int32, a.dtype
assert (a.astype(np.uint32) == b).all()
"
}

@test "the timing table names every step; -q silences it" {
	run "$GPUFILT" "$SAMPLES/moon.png" -o m.png --mean 5 --mean 3
	[ "$status" -eq 0 ]
	for step in decode "mean 5" "mean 3" encode write total; do
		[[ "$output" == *"  $step "* ]]
	done
	run "$GPUFILT" "$SAMPLES/moon.png" -o m.png -q
	[ -z "$output" ]
}

@test "--timings json prints one parseable object as the last line" {
	"$GPUFILT" "$SAMPLES/moon.png" -o m.png --mean 5 --timings json 2>err.txt
	tail -n 1 err.txt | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["width"] == 512 and r["height"] == 512, r
assert r["backend"] in ("cuda", "cpu")
steps = [s["step"] for s in r["steps"]]
for want in ("decode", "mean 5", "encode", "write", "total"):
    assert want in steps, steps
assert all(s["ms"] >= 0 for s in r["steps"])
'
}

@test "--compare checks every variant and needs no output" {
	run "$GPUFILT" "$SAMPLES/coins.png" --mean 5 --compare
	[ "$status" -eq 0 ]
	[[ "$output" == *"compare"* ]]
	[[ "$output" == *"reference"* ]]
	[[ "$output" != *"MISMATCH"* ]]
	"$GPUFILT" "$SAMPLES/coins.png" --mean 3 --compare --timings json 2>err.txt
	tail -n 1 err.txt | python3 -c '
import json, sys
r = json.load(sys.stdin)
rows = r["compare"]
assert rows[0]["variant"] == "gold" and rows[0]["check"] == "reference", rows
assert all(x["check"] in ("reference", "match") for x in rows), rows
'
}

@test "an output that is the input is refused unless --force" {
	cp "$SAMPLES/coins.png" c.png
	run "$GPUFILT" c.png -o c.png --mean 3
	[ "$status" -eq 64 ]
	[ "$output" = "gpufilt: c.png: is the input file; use --force to replace it" ]
	cmp c.png "$SAMPLES/coins.png"
	ln -s c.png link.png
	run "$GPUFILT" c.png -o link.png --mean 3
	[ "$status" -eq 64 ]
	"$GPUFILT" c.png -o c.png --mean 3 --force -q
	run ! cmp -s c.png "$SAMPLES/coins.png"
	no_temporaries
}

@test "missing output directories are created; an uncreatable output exits 73" {
	"$GPUFILT" "$SAMPLES/coins.png" -o missing/deeper/out.png -q
	[ -s missing/deeper/out.png ]
	: >afile
	run "$GPUFILT" "$SAMPLES/coins.png" -o afile/out.png
	[ "$status" -eq 73 ]
	[[ "$output" == "gpufilt: afile/out.png: cannot create: afile: Not a directory" ]]
	mkdir ro && chmod 555 ro
	if [ "$(id -u)" != 0 ]; then
		run "$GPUFILT" "$SAMPLES/coins.png" -o ro/out.png
		[ "$status" -eq 73 ]
	fi
	[ -z "$(ls -A ro)" ]
}

@test "a write error exits 74" {
	run bash -c "'$GPUFILT' '$SAMPLES/coins.png' -o - --format pgm -q > /dev/full"
	[ "$status" -eq 74 ]
	[[ "$output" == "gpufilt: (stdout): write error: No space left on device" ]]
}

@test "a failed run leaves an existing output untouched and no temporary" {
	echo keep >out.png
	echo garbage >bad.png
	run "$GPUFILT" bad.png -o out.png --mean 3
	[ "$status" -eq 65 ]
	[ "$(cat out.png)" = keep ]
	no_temporaries
}

@test "a killed run leaves no partial output" {
	$REF random 1500 1500 $RANDOM big.pgm
	"$GPUFILT" big.pgm -o out.png --mean 5 --mean 5 --mean 5 --backend cpu --png-level 12 -q &
	pid=$!
	sleep 0.2
	kill -TERM $pid 2>/dev/null || true
	wait $pid || true
	no_temporaries
	# either nothing or a whole file
	if [ -e out.png ]; then "$GPUFILT" out.png -o check.pgm -q; fi
}

@test "the man page's examples run" {
	ln -s "$SAMPLES" samples
	ls samples/*.png >list.txt
	# the examples run the gpufilt on PATH (the repository's): whether it
	# has a GPU is asked of that binary, not of $GPUFILT (a sanitizer's
	# build without CUDA under make test-asan)
	gpu=1
	PATH="$ROOT:$PATH" gpufilt "$SAMPLES/text.png" -o g.png --backend cuda -q 2>/dev/null || gpu=0
	n=0
	while IFS= read -r cmd; do
		status=0
		PATH="$ROOT:$PATH" bash -c "$cmd" >out.txt 2>err.txt </dev/null || status=$?
		# gpufilt bench needs a GPU: without one it must say so with 69
		want=0
		[[ "$cmd" == "gpufilt bench"* && $gpu == 0 ]] && want=69
		if [ "$status" -ne "$want" ]; then
			echo "example: $cmd"
			echo "exit status $status, not $want; its stderr:"
			head -c 4000 err.txt
			false
		fi
		n=$((n + 1))
	done < <(sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$ROOT/man/gpufilt.1" | sed -n '/^\.EX/,/^\.EE/p' | grep '^gpufilt ' | sed 's/\\-/-/g')
	[ "$n" -ge 10 ]
	for f in blurred.png coins.pgm rocket.png moon.png blurred/rocket.png hists/coins.csv t/moon-t.png; do
		[ -s "$f" ] || { echo "the examples wrote no $f"; false; }
	done
}

@test "the man page documents every long option" {
	for opt in $("$GPUFILT" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$ROOT/man/gpufilt.1" ||
			{ echo "missing in man page: $opt"; false; }
		grep -q -- "$opt" "$ROOT/README.md" || { echo "missing in README: $opt"; false; }
	done
}

@test "orientation stages match numpy's definitions on a 3x2 image" {
	printf 'P5\n3 2\n255\n\001\002\003\004\005\006' >a.pgm
	check() { # OPTION... EXPECTED_W EXPECTED_H BYTES
		local want_w=${@: -3:1} want_h=${@: -2:1} want=${@: -1}
		"$GPUFILT" a.pgm -o out.pgm -q "${@:1:$#-3}"
		[ "$(head -c 12 out.pgm | sed -n 2p)" = "$want_w $want_h" ] || { echo "$*: size"; false; }
		[ "$(tail -c 6 out.pgm | od -An -tu1 | tr -s ' ' | sed 's/^ //')" = "$want" ] ||
			{ echo "$*: $(tail -c 6 out.pgm | od -An -tu1)"; false; }
	}
	check --transpose 2 3 "1 4 2 5 3 6"
	check --transverse 2 3 "6 3 5 2 4 1"
	check --rotate 90 2 3 "4 1 5 2 6 3"
	check --rotate 270 2 3 "3 6 2 5 1 4"
	check --rotate 180 3 2 "6 5 4 3 2 1"
	check --flip 3 2 "4 5 6 1 2 3"
	check --flop 3 2 "3 2 1 6 5 4"
	check --flop --rotate 90 2 3 "6 3 5 2 4 1"
	check --rotate 90 --flip 2 3 "6 3 5 2 4 1"
}

@test "orientation identities hold on a photo" {
	"$GPUFILT" "$SAMPLES/coffee.png" -o in.pgm --gray -q
	"$GPUFILT" in.pgm -o r4.pgm --rotate 90 --rotate 90 --rotate 90 --rotate 90 -q
	cmp in.pgm r4.pgm
	"$GPUFILT" in.pgm -o t2.pgm --transpose --transverse --rotate 180 -q
	cmp in.pgm t2.pgm
	"$GPUFILT" in.pgm -o f.pgm --flip --flop --rotate 180 -q
	cmp in.pgm f.pgm
	"$GPUFILT" in.pgm -o a.pgm --rotate 180 -q
	"$GPUFILT" in.pgm -o b.pgm --flip --flop -q
	cmp a.pgm b.pgm
	"$GPUFILT" in.pgm -o c.pgm --mean 3 --transpose -q
	"$GPUFILT" in.pgm -o d.pgm --transpose --mean 3 -q
	cmp c.pgm d.pgm
	run "$GPUFILT" in.pgm -o e.pgm --rotate 45
	[ "$status" -eq 64 ]
}

@test "--hist CSV equals a brute-force count, at any point of the pipeline" {
	$REF random 37 23 $RANDOM in.pgm
	"$GPUFILT" in.pgm --hist h.csv -q
	diff h.csv <($REF hist in.pgm)
	"$GPUFILT" in.pgm --mean 3 --hist after.csv -o m.pgm -q
	diff after.csv <($REF hist m.pgm)
	run ! cmp -s h.csv after.csv
	"$GPUFILT" in.pgm --transpose --hist t.csv -q
	cmp h.csv t.csv
	[ "$(tail -n 1 h.csv | cut -d, -f3)" = 851 ]
}

@test "--hist JSON parses, agrees with the CSV and sums to width x height" {
	"$GPUFILT" "$SAMPLES/coins.png" --hist h.json --hist h.csv -q
	python3 - <<'PY'
import csv, json
j = json.load(open("h.json"))
rows = list(csv.DictReader(open("h.csv")))
assert [int(r["count"]) for r in rows] == j["bins"]
assert sum(j["bins"]) == j["pixels"] == j["width"] * j["height"] == 384 * 303
assert int(rows[-1]["cumulative"]) == j["pixels"]
s = j["stats"]
assert s["min"] == min(v for v in range(256) if j["bins"][v])
assert s["max"] == max(v for v in range(256) if j["bins"][v])
assert abs(s["mean"] - sum(v * c for v, c in enumerate(j["bins"])) / j["pixels"]) < 1e-4
for key in ("stddev", "mode", "median", "p1", "p5", "p25", "p75", "p95", "p99", "entropy", "otsu"):
    assert key in s, key
PY
}

@test "--stats prints key=value lines on stdout, with no image written" {
	printf 'P5\n2 2\n255\n\012\012\012\310' >two.pgm
	run "$GPUFILT" two.pgm --stats -q
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "pixels=4" ]
	[[ "$output" == *$'\nmean=57.5000\n'* ]]
	[[ "$output" == *$'\nmedian=10\n'* ]]
	[[ "$output" == *$'\np95=200\n'* ]]
	[[ "$output" == *$'\notsu=10' ]]
	[ "$(ls)" = "two.pgm" ]
	run "$GPUFILT" two.pgm --hist h.csv --backend cpu
	[[ "$output" == *"hist of two.pgm: pixels=4 min=10 max=200 mean=57.5000 "* ]]
}

@test "--hist - writes the CSV to stdout; one stdout output only" {
	"$GPUFILT" "$SAMPLES/text.png" --hist - -q >h.csv
	[ "$(head -n 1 h.csv)" = "value,count,cumulative" ]
	[ "$(wc -l <h.csv)" -eq 257 ]
	run "$GPUFILT" "$SAMPLES/text.png" --hist - -o - --format pgm
	[ "$status" -eq 64 ]
	run "$GPUFILT" "$SAMPLES/text.png" --hist - --stats
	[ "$status" -eq 64 ]
	run "$GPUFILT" "$SAMPLES/text.png" --hist h.txt
	[ "$status" -eq 64 ]
	[ "${lines[0]}" = "gpufilt: h.txt: report file must end in .csv, .json, .png or .svg, or be -" ]
	run "$GPUFILT" "$SAMPLES/text.png" --hist a.csv --colsum a.csv
	[ "$status" -eq 64 ]
	[ ! -e a.csv ]
}

@test "histograms of constant and two-valued images are exact" {
	$REF const 33 17 200 c.pgm
	"$GPUFILT" c.pgm --hist h.csv -q
	[ "$(grep -v ',0,' h.csv | sed -n 2p)" = "200,561,561" ]
	"$GPUFILT" c.pgm --hist h.csv --backend cpu -q
	[ "$(sed -n 202p h.csv)" = "200,561,561" ]
}

@test "the histogram plot decodes and has the documented size" {
	"$GPUFILT" "$SAMPLES/moon.png" --hist-log --hist h.png -q
	"$GPUFILT" h.png -o h.pgm --gray -q
	[ "$(sed -n 2p h.pgm)" = "800 450" ]
	"$GPUFILT" "$SAMPLES/astronaut.png" --plot-size 640x360 --hist rgb.png -q
	"$GPUFILT" rgb.png -o rgb.pgm --gray -q
	[ "$(sed -n 2p rgb.pgm)" = "640 360" ]
}

@test "a colour histogram has a column per channel; --hist-channels says what replaced it" {
	"$GPUFILT" "$SAMPLES/coffee.png" --hist h.csv --hist h.json -q
	[ "$(head -n 1 h.csv)" = "value,red,green,blue" ]
	python3 - <<'PY'
import csv, json
j = json.load(open("h.json"))
rows = list(csv.DictReader(open("h.csv")))
assert j["channels"] == ["red", "green", "blue"] and j["bits"] == 8
for ch in ("red", "green", "blue"):
    assert [int(r[ch]) for r in rows] == j["bins"][ch]
    assert sum(j["bins"][ch]) == 600 * 400 == j["stats"][ch]["pixels"]
assert j["bins"]["red"] != j["bins"]["green"] != j["bins"]["blue"]
PY
	# a gray image keeps the one-channel CSV
	"$GPUFILT" "$SAMPLES/coins.png" --hist g.csv -q
	[ "$(head -n 1 g.csv)" = "value,count,cumulative" ]
	run "$GPUFILT" "$SAMPLES/coffee.png" --hist-channels rgb --hist h.csv
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == *"--hist-channels is gone"*"--gray before --hist"* ]]
}

@test "--colsum and --rowsum equal brute-force sums, and the totals agree" {
	for size in "1 1" "1 5" "5 1" "7 3" "13 9" "35 4"; do
		$REF random $size $RANDOM in.pgm
		"$GPUFILT" in.pgm --colsum c.csv --rowsum r.csv --hist h.json -q
		diff c.csv <($REF colsum in.pgm)
		diff r.csv <($REF rowsum in.pgm)
	done
	"$GPUFILT" "$SAMPLES/text.png" --colsum c.json --rowsum r.json --hist h.json -q
	python3 - <<'PY'
import json
c, r, h = (json.load(open(f)) for f in ("c.json", "r.json", "h.json"))
assert len(c["sums"]) == 448 and len(r["sums"]) == 172
total = sum(v * n for v, n in enumerate(h["bins"]))
assert sum(c["sums"]) == sum(r["sums"]) == c["total"] == r["total"] == total
assert c["axis"] == "column" and r["axis"] == "row"
PY
	"$GPUFILT" "$SAMPLES/text.png" --colsum c.png --rowsum r.png -q
	"$GPUFILT" c.png -o c.pgm --gray -q
	"$GPUFILT" r.png -o r.pgm --gray -q
	[ "$(sed -n 2p c.pgm)" = "800 450" ]
	[ "$(sed -n 2p r.pgm)" = "800 450" ]
}

@test "gpufilt bench: --help lists the experiments; bad arguments exit 64" {
	run "$GPUFILT" bench --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: gpufilt bench "* ]]
	for e in copy mean transpose hist colsum matmul; do
		[[ "$output" == *"  $e "* ]]
	done
	for args in "nosuch" "--reps 0" "--reps x" "--size 100" "--size 0x5" "--size 70000x2" \
		"--matmul 4x4" "--matmul 0x1x1" "--device -1" "--bogus" "--reps"; do
		run "$GPUFILT" bench $args
		echo "$args -> $status: $output"
		[ "$status" -eq 64 ]
		[[ "${lines[0]}" == "gpufilt: bench: "* ]]
		[[ "${lines[1]}" == "usage: gpufilt bench "* ]]
	done
}

@test "gpufilt bench without a GPU says so and exits 69" {
	if "$GPUFILT" "$SAMPLES/text.png" -o g.png --backend cuda -q 2>/dev/null; then
		skip "a GPU is present"
	fi
	run "$GPUFILT" bench mean --reps 1
	[ "$status" -eq 69 ]
	[[ "$output" == "gpufilt: bench: no usable GPU"* ]]
	run "$GPUFILT" bench --json
	[ "$status" -eq 69 ]
}

# A batch of good photos plus corrupt, truncated and missing files.
make_batch() {
	mkdir -p in
	for s in camera coins moon text; do cp "$SAMPLES/$s.png" in/; done
	cp "$SAMPLES/rocket.jpg" in/
	echo "not an image" >in/corrupt.png
	head -c 3000 "$SAMPLES/coffee.png" >in/truncated.png
}

@test "batch: good files are written, bad ones reported, and the batch goes on" {
	make_batch
	run "$GPUFILT" --mean 5 -o out/ in/camera.png in/corrupt.png in/missing.png in/coins.png \
		in/truncated.png in/rocket.jpg
	echo "$output"
	[ "$status" -eq 65 ] # the earliest failure: corrupt.png
	[[ "$output" == *"gpufilt: in/corrupt.png: unknown image format"* ]]
	[[ "$output" == *"gpufilt: in/missing.png: cannot open: No such file or directory"* ]]
	[[ "$output" == *"gpufilt: in/truncated.png: "* ]]
	[[ "$output" == *"gpufilt: 3 processed, 3 failed"* ]]
	[ "$(ls out | tr '\n' ' ')" = "camera.png coins.png rocket.png " ]
	"$GPUFILT" in/coins.png -o one.png --mean 5 -q
	cmp one.png out/coins.png
	no_temporaries out
	run "$GPUFILT" -o out2/ in/missing.png in/coins.png -q
	[ "$status" -eq 66 ]
}

@test "batch: templates name outputs and reports; collisions are usage errors" {
	make_batch
	"$GPUFILT" --mean 3 -o 'o/{stem}.blur.png' --hist 'h/{index}-{name}.csv' \
		in/camera.png in/rocket.jpg -q
	[ -s o/camera.blur.png ]
	[ -s o/rocket.blur.png ]
	[ -s h/1-camera.png.csv ]
	[ -s h/2-rocket.jpg.csv ]
	"$GPUFILT" --transpose -o '{dir}/{stem}-t.{ext}.png' in/coins.png in/text.png -q
	[ -s in/coins-t.png.png ]
	[ -s in/text-t.png.png ]
	mkdir -p a b && cp in/coins.png a/x.png && cp in/text.png b/x.png
	run "$GPUFILT" --mean 3 -o out/ a/x.png b/x.png
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == "gpufilt: out/x.png: a/x.png and b/x.png both map to this output name"* ]]
	[ ! -e out/x.png ]
	run "$GPUFILT" --hist h.csv a/x.png b/x.png
	[ "$status" -eq 64 ]
	"$GPUFILT" --hist 'h/{dir}/{stem}.csv' a/x.png b/x.png -q
	[ -s h/a/x.csv ]
	[ -s h/b/x.csv ]
}

@test "batch: --files-from and --shard cover every file exactly once" {
	make_batch
	rm in/corrupt.png in/truncated.png
	for i in $(seq 1 7); do cp in/coins.png in/c$i.png; done
	ls in/*.png in/*.jpg >list.txt
	n=$(wc -l <list.txt)
	for k in 1 2 3; do
		"$GPUFILT" --files-from list.txt --shard $k/3 --hist "s$k/{stem}.csv" -q
	done
	[ "$(cat s1/*.csv s2/*.csv s3/*.csv | grep -c '^value')" -eq "$n" ]
	[ "$(ls s1 s2 s3 | grep -c csv)" -eq "$n" ]
	[ "$(ls s1 s2 s3 | grep csv | sort | uniq -d | wc -l)" -eq 0 ]
	# stdin list, with an empty line and CRLF
	printf 'in/coins.png\r\n\nin/text.png\n' | "$GPUFILT" --files-from - --stats -q --jobs 1 >stats.txt
	[ "$(grep -c '^pixels=' stats.txt)" -eq 2 ]
	[ "$(sed -n 1p stats.txt)" = "file=in/coins.png" ]
	[ "$(sed -n 17p stats.txt)" = "file=in/text.png" ]
	# an empty list is an empty batch
	: >empty.txt
	run "$GPUFILT" --files-from empty.txt --stats
	[ "$status" -eq 0 ]
	[[ "$output" == *"gpufilt: 0 processed, 0 failed"* ]]
}

@test "batch: --jobs 1, --jobs 4 and single-file runs write identical bytes" {
	make_batch
	rm in/corrupt.png in/truncated.png
	cp "$SAMPLES/hubble_deep_field.jpg" in/ # a second JPEG, as photo batches have
	"$GPUFILT" --mean 5 --hist 'j1/{stem}.json' -o j1/ --jobs 1 in/* -q
	"$GPUFILT" --mean 5 --hist 'j4/{stem}.json' -o j4/ --jobs 4 in/* -q
	"$GPUFILT" --mean 5 --hist 'jd/{stem}.json' -o jd/ in/* -q
	diff -r j1 j4
	diff -r j1 jd
	[ "$(ls j1 | wc -l)" -eq 12 ]
	for f in in/*; do
		stem=$(basename "${f%.*}")
		"$GPUFILT" "$f" --mean 5 --hist one.json -o one.png -q
		cmp one.png "j1/$stem.png"
		cmp one.json "j1/$stem.json"
	done
}

@test "batch: --skip-existing resumes; a killed batch leaves only whole files" {
	make_batch
	rm in/corrupt.png in/truncated.png
	for i in $(seq 1 30); do $REF random 400 300 $i in/r$i.pgm; done
	"$GPUFILT" --mean 5 --mean 5 --mean 5 --png-level 9 -o out/ --jobs 2 in/* -q --backend cpu &
	pid=$!
	sleep 0.3
	kill -INT $pid 2>/dev/null || true
	wait $pid || true
	no_temporaries out
	for f in out/*.png; do [ -e "$f" ] || continue; "$GPUFILT" "$f" --stats -q >/dev/null; done
	before=$(ls out | wc -l)
	run "$GPUFILT" --mean 5 --mean 5 --mean 5 --png-level 9 -o out/ --jobs 2 in/* --skip-existing
	[ "$status" -eq 0 ]
	[[ "$output" == *"gpufilt: $((35 - before)) processed, 0 failed"* ]]
	[ "$(ls out | wc -l)" -eq 35 ]
	run "$GPUFILT" --mean 5 -o out/ in/* --skip-existing
	[[ "$output" == *"gpufilt: 0 processed, 0 failed, 35 skipped"* ]]
}

@test "batch: --timings json prints one line per file and a summary" {
	make_batch
	rm in/corrupt.png in/truncated.png
	"$GPUFILT" --mean 3 -o out/ in/* --timings json 2>err.txt
	python3 - <<'PY'
import json
lines = [json.loads(l) for l in open("err.txt") if l.startswith("{")]
files = [l for l in lines if "input" in l]
assert len(files) == 5, lines
assert lines[-1]["summary"]["processed"] == 5 and lines[-1]["summary"]["failed"] == 0
assert all(any(s["step"] == "mean 3" for s in f["steps"]) for f in files)
PY
}

@test "batch: --timings json's summary says where the time went: workers, steps, GPUs, bottleneck" {
	make_batch
	"$GPUFILT" --mean 3 -o out/ in/* --backend cpu --jobs 2 --timings json 2>err.txt || true
	python3 - <<'PY'
import json
lines = [json.loads(l) for l in open("err.txt") if l.startswith("{")]
files = [l for l in lines if "steps" in l]
s = lines[-1]["summary"]
assert s["processed"] == 5 and s["failed"] == 2, s
w = s["workers"]
assert [x["id"] for x in w] == [0, 1], w
assert sum(x["files"] for x in w) == 7, w
assert all(x["busy_ms"] >= 0 and x["wait_ms"] >= 0 and x["out_ms"] >= 0 for x in w), w
assert sum(x["busy_ms"] for x in w) > 0, w
steps = {(x["step"], x.get("variant")): x for x in s["steps"]}
# every file but corrupt.png (no image format: refused as it is read) was read,
# the good ones decoded (a PNG and a JPEG decoder) and the rest
assert steps[("read", None)]["files"] == 6, steps
dec = [x for k, x in steps.items() if k[0] == "decode"]
assert sorted((x["variant"], x["files"]) for x in dec) == [("jpeg", 1), ("png", 4)], dec
for k in [("mean 3", "cpu"), ("encode", "png"), ("write", None), ("total", None)]:
    assert steps[k]["files"] == 5, (k, steps)
# the sums are the per-file lines' rows
for (step, var), x in steps.items():
    if step == "read":
        continue
    rows = [r["ms"] for f in files for r in f["steps"]
            if r["step"] == step and r.get("variant") == var]
    assert len(rows) == x["files"], (step, var, rows, x)
    assert abs(sum(rows) - x["ms"]) <= 0.05 + 0.01 * len(rows), (step, var, sum(rows), x)
    assert abs(x["ms_per_file"] * x["files"] - x["ms"]) <= 0.05 + 0.001 * x["files"], x
assert s["gpus"] == [], s
assert 0 <= s["busy"]["workers"] <= 1, s
assert s["bottleneck"] == "workers", s
PY
}

@test "batch: the default --jobs is the cores the process may use (its affinity), not the host's" {
	command -v taskset >/dev/null || skip "taskset is not installed"
	make_batch
	rm in/corrupt.png in/truncated.png
	taskset -c 0 "$GPUFILT" --mean 3 -o out/ in/* --backend cpu --timings json 2>err.txt
	grep '"summary"' err.txt | grep -q '"jobs":1,'
	"$GPUFILT" --mean 3 -o out2/ in/* --backend cpu --jobs 3 --timings json 2>err.txt
	grep '"summary"' err.txt | grep -q '"jobs":3,'
}

@test "batch: a progress line on a terminal, none when stderr is not one or with -q" {
	command -v script >/dev/null || skip "script(1) is not installed"
	make_batch
	rm in/corrupt.png in/truncated.png
	for i in $(seq 1 12); do cp in/coins.png in/c$i.png; done
	script -qec "'$GPUFILT' --mean 3 -o out/ --jobs 2 in/*" /dev/null >tty.txt
	grep -q 'gpufilt: [0-9]*/17 files, .*/s, ETA' tty.txt
	grep -q 'gpufilt: 17 processed, 0 failed' tty.txt
	"$GPUFILT" --mean 3 -o out2/ --jobs 2 in/* 2>err.txt
	run ! grep -q 'ETA' err.txt
	script -qec "'$GPUFILT' --mean 3 -o out3/ --jobs 2 -q in/*" /dev/null >tty.txt
	run ! grep -q 'ETA' tty.txt
}
