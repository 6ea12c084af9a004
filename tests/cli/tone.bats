#!/usr/bin/env bats
# The tone stages (--equalize, --autocontrast, --level, --gamma, --negate):
# every layout byte for byte against OpenCV's equalizeHist, Pillow's
# ImageOps.autocontrast and numpy (tests/cli/oracle_tone.py, one part per
# test), chains with other stages; the bad values each refused with exit 64,
# the flag and the value named and no output written; --autocontrast's
# optional value; histograms plotted around --equalize.

load helper

oracle() { # oracle PART...: oracle_tone.py's parts on the CPU backend
	run python3 "$ROOT/tests/cli/oracle_tone.py" "$GPUFILT" "${GPUFILT_TEST_SEED:-$RANDOM$RANDOM}" cpu "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}

@test "--equalize equals cv2.equalizeHist on each colour channel, numpy's rule at 16 bits (oracle_tone.py equalize)" {
	oracle equalize
}

@test "--autocontrast equals Pillow's ImageOps.autocontrast, a port of it at 16 bits (oracle_tone.py autocontrast)" {
	oracle autocontrast
}

@test "--level, --gamma and --negate equal numpy with tables in Python floats (oracle_tone.py level gamma negate)" {
	oracle level gamma negate
}

@test "tone stages in chains equal the composed oracles (oracle_tone.py chains)" {
	oracle chains
}

@test "bad tone values exit 64, name the flag and the value, and write nothing" {
	$REF random 9 9 "$RANDOM" in.pgm
	for args in "--level 200,100" "--level 10" "--level 0,255,0" "--level 0,300" "--level 10%,5%" \
		"--level 0,101%" "--level a,b" "--level 0,255,101" "--gamma 0" "--gamma abc" "--gamma 101" \
		"--gamma -1" "--gamma 2.2.2" "--autocontrast 50" "--autocontrast 1,2,3" "--autocontrast -1" \
		"--autocontrast 1,50" "--autocontrast ,5" "--autocontrast=" "--autocontrast=x"; do
		run bash -c "'$GPUFILT' in.pgm -o out.png $args"
		echo "$args: exit $status: $output"
		[ "$status" -eq 64 ]
		flag=${args%% *}
		flag=${flag%%=*}
		value=${args#* }
		value=${value#*=}
		[[ "$output" == *"$flag"* ]]
		[ "$value" = "$flag" ] || [[ "$output" == *"$value"* ]]
		[ ! -e out.png ]
	done
	no_temporaries
}

@test "a --level past the image's depth is refused at that depth only" {
	$REF random 9 9 "$RANDOM" in.pgm
	run "$GPUFILT" in.pgm -o out.png --level 0,300
	[ "$status" -eq 64 ]
	[[ "$output" == *"--level 0,300"*"above 255"* ]]
	[ ! -e out.png ]
	"$GPUFILT" in.pgm -o out.png --depth 16 --level 0,300 -q
	[ -s out.png ]
	run "$GPUFILT" in.pgm -o out2.png --level 200,50%
	[ "$status" -eq 64 ]
	[[ "$output" == *"BLACK"*"below WHITE"* ]]
	[ ! -e out2.png ]
}

@test "--autocontrast takes the next word as its value only when it looks like one" {
	$REF random 33 17 "$RANDOM" in.pgm
	"$GPUFILT" in.pgm -o want0.pgm --autocontrast=0 -q
	"$GPUFILT" in.pgm -o want2.pgm --autocontrast=2,2 -q
	"$GPUFILT" in.pgm -o want3.pgm --autocontrast=2 --mean 3 -q
	# the default before -o, before the input, at the end, before another option
	"$GPUFILT" in.pgm -o d0.pgm --autocontrast=0 --mean 3 -q
	takes_default --autocontrast want0.pgm d0.pgm
	# a value, wherever the operands are
	gives want2.pgm in.pgm -o got.pgm --autocontrast 2 -q
	gives want2.pgm --autocontrast 2 in.pgm -o got.pgm -q
	gives want3.pgm --autocontrast 2 --mean 3 in.pgm -o got.pgm -q
	"$GPUFILT" in.pgm --autocontrast 0.5,2 -o i.pgm -q
	gives i.pgm in.pgm --autocontrast .5,2 -o got.pgm -q
	# a word that starts with a digit is the value, even a file name
	cp in.pgm 2.pgm
	run "$GPUFILT" --autocontrast 2.pgm -o j.pgm
	[ "$status" -eq 64 ]
	[[ "$output" == *"--autocontrast"*"2.pgm"* ]]
	[ ! -e j.pgm ]
}

@test "--equalize flattens a photo's histogram: plots before and after, and the CDF rises evenly" {
	"$GPUFILT" "$SAMPLES/moon.png" --hist before.png --hist before.csv --equalize \
		--hist after.png --hist after.csv -o eq.png -q
	[ -s eq.png ]
	[ "$(head -c 4 before.png | tail -c 3)" = PNG ]
	[ "$(head -c 4 after.png | tail -c 3)" = PNG ]
	# the cumulative count at value v against (v + 1) / 256 of the pixels: far
	# from it before (0.48 on the moon), close after (0.004)
	python3 - before.csv after.csv <<'PY'
import csv, sys
def gap(path):
    rows = list(csv.DictReader(open(path)))
    n = int(rows[-1]["cumulative"])
    return max(abs(int(r["cumulative"]) / n - (int(r["value"]) + 1) / 256) for r in rows
               if int(r["count"]))
before, after = gap(sys.argv[1]), gap(sys.argv[2])
print("largest gap from the uniform CDF: %.3f before, %.3f after" % (before, after))
sys.exit(0 if before > 0.3 and after < 0.02 else 1)
PY
}

@test "tone stages keep alpha, and the CPU and auto backends give the same bytes" {
	python3 - "$RANDOM" <<'PY'
import random, sys
w, h = 37, 23
rng = random.Random(int(sys.argv[1]))
data = bytes(rng.randrange(256) for _ in range(w * h * 4))
hdr = "P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (w, h)
open("in.pam", "wb").write(hdr.encode() + data)
PY
	for st in "--equalize" "--autocontrast 3" "--level 10%,80%,0.8" "--gamma 2.2" "--negate"; do
		"$GPUFILT" in.pam -o cpu.pam --format pam $st --backend cpu -q
		"$GPUFILT" in.pam -o auto.pam --format pam $st --backend auto -q
		cmp cpu.pam auto.pam
		python3 - in.pam cpu.pam <<'PY'
import sys
a, b = (open(p, "rb").read().split(b"ENDHDR\n", 1)[1] for p in sys.argv[1:])
assert a[3::4] == b[3::4], "alpha changed"
PY
	done
	# negating twice gives the image back
	"$GPUFILT" in.pam -o twice.pam --format pam --negate --negate -q
	cmp <(tail -c +2 in.pam) <(tail -c +2 twice.pam)
}
