#!/usr/bin/env bats
# --clahe [CLIP][,WxH]: every layout byte for byte against OpenCV's
# createCLAHE().apply() on each colour channel (tests/cli/oracle_clahe.py,
# one part per test), awkward sizes and chains with other stages; the bad
# values each refused with exit 64, the flag and the value named and no
# output written; the optional value; alpha kept; the CPU path against the
# gold on the command line.

load helper

oracle() { # oracle PART...: oracle_clahe.py's parts on the CPU backend
	run python3 "$ROOT/tests/cli/oracle_clahe.py" "$GPUFILT" "${GPUFILT_TEST_SEED:-$RANDOM$RANDOM}" cpu "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}

@test "--clahe equals cv2.createCLAHE on each colour channel, 8 and 16 bits, random images and the samples (oracle_clahe.py layouts)" {
	oracle layouts
}

@test "--clahe equals cv2.createCLAHE on every size from 1x1 to 9x9 with grids up to 9x9 (oracle_clahe.py sizes)" {
	oracle sizes
}

@test "--clahe in chains equals the composed oracles (oracle_clahe.py chains)" {
	oracle chains
}

@test "bad --clahe values exit 64, name the flag and the value, and write nothing" {
	$REF random 9 9 "$RANDOM" in.pgm
	for value in -1 2,0x8 2,65x8 2,8 1000.5 2, 2,8x 2,8x8x8 1e3 2.5.1 ,0x1 -0.5 ,8; do
		run "$GPUFILT" in.pgm -o out.png --clahe "$value"
		echo "--clahe $value: exit $status: $output"
		[ "$status" -eq 64 ]
		[[ "$output" == *"--clahe: '$value'"* ]]
		[ ! -e out.png ]
	done
	for args in "--clahe=" "--clahe=x"; do
		run "$GPUFILT" in.pgm -o out.png $args
		echo "$args: exit $status: $output"
		[ "$status" -eq 64 ]
		[[ "$output" == *"--clahe"* ]]
		[ ! -e out.png ]
	done
	no_temporaries
}

@test "--clahe takes the next word as its value only when it looks like one" {
	# tiles of 16x12: CLIP 2 and 3 cut at 1 and 2 pixels a bin (33x17's 5x3 cut at 1 both)
	$REF random 128 96 "$RANDOM" in.pgm
	"$GPUFILT" in.pgm -o want.pgm --clahe=2,8x8 -q
	"$GPUFILT" in.pgm -o want3.pgm --clahe=3 -q
	"$GPUFILT" in.pgm -o want4.pgm --clahe=2,4x4 --mean 3 -q
	run ! cmp -s want.pgm want3.pgm
	# the default (2, 8x8) before -o, before the input, at the end, before another option
	"$GPUFILT" in.pgm -o d0.pgm --clahe=2 --mean 3 -q
	takes_default --clahe want.pgm d0.pgm
	# a value, wherever the operands are; the grid alone keeps CLIP 2
	gives want3.pgm in.pgm -o got.pgm --clahe 3 -q
	gives want3.pgm --clahe 3 in.pgm -o got.pgm -q
	gives want4.pgm in.pgm -o got.pgm --clahe ,4x4 --mean 3 -q
	"$GPUFILT" in.pgm -o i.pgm --clahe 0.5,8x8 -q
	gives i.pgm in.pgm -o got.pgm --clahe .5 -q
}

@test "--clahe keeps alpha, and the CPU path equals the gold (--compare) on every layout" {
	python3 - "$RANDOM" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
tup = {1: "GRAYSCALE", 2: "GRAYSCALE_ALPHA", 3: "RGB", 4: "RGB_ALPHA"}
for c in (1, 2, 3, 4):
    for bits in (8, 16):
        w, h = 61, 37
        data = bytes(rng.randrange(256) for _ in range(w * h * c * bits // 8))
        hdr = "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n" % (
            w, h, c, (1 << bits) - 1, tup[c])
        open("in-%d-%d.pam" % (c, bits), "wb").write(hdr.encode() + data)
PY
	for f in in-*.pam; do
		for st in "--clahe" "--clahe 0,3x7" "--clahe 40,1x1" "--clahe 1,64x64"; do
			"$GPUFILT" "$f" -o out.pam --format pam $st --backend cpu -q
			"$GPUFILT" "$f" $st --compare --backend cpu -q >/dev/null
			python3 - "$f" out.pam <<'PY'
import sys
heads, bodies = zip(*(open(p, "rb").read().split(b"ENDHDR\n", 1) for p in sys.argv[1:]))
depth = int(heads[0].split(b"DEPTH ")[1].split(b"\n")[0])
size = 2 if b"MAXVAL 65535" in heads[0] else 1
if depth in (2, 4):
    step = depth * size
    for k in range(size):
        assert bodies[0][step - size + k::step] == bodies[1][step - size + k::step], "alpha changed"
assert bodies[0] != bodies[1], "nothing changed"
PY
		done
	done
}

@test "--clahe raises a dark photo's local contrast: the moon's detail spreads over more levels" {
	"$GPUFILT" "$SAMPLES/moon.png" --hist before.csv --clahe --hist after.csv -o out.png -q
	[ -s out.png ]
	python3 - before.csv after.csv <<'PY'
import csv, sys
def used(path):
    return sum(1 for r in csv.DictReader(open(path)) if int(r["count"]))
before, after = used(sys.argv[1]), used(sys.argv[2])
print("levels used: %d before, %d after" % (before, after))
sys.exit(0 if after > before else 1)
PY
}
