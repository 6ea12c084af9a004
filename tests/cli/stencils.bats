#!/usr/bin/env bats
# The neighbourhood stages (box mean of any window, Gaussian, unsharp mask,
# median, erode/dilate/open/close, Sobel/Scharr/Laplacian, convolution) on
# every layout and border against independent oracles: numpy for every
# rule, OpenCV where its rule is the same (tests/cli/oracle_*.py, one per
# family); and what they share: --border for all of them, flag order, bad
# values.

load helper

oracle() { # oracle NAME: the family's oracle on the CPU backend
	run python3 "$ROOT/tests/cli/oracle_$1.py" "$GPUFILT" "${GPUFILT_TEST_SEED:-$RANDOM$RANDOM}" cpu
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "box mean of any window and Gaussian and unsharp mask equal numpy (and cv2.blur)" {
	oracle gaussian
}

@test "median equals numpy (and cv2.medianBlur)" {
	oracle median
}

@test "erode, dilate, open and close equal numpy (and cv2.erode, cv2.dilate, cv2.morphologyEx)" {
	oracle morph
}

@test "Sobel, Scharr, Laplacian and --convolve equal numpy (and cv2)" {
	oracle edges
}

@test "--border is one setting for every neighbourhood stage, wherever it is given" {
	# a gentle ramp with noise: no stage saturates everywhere (Scharr does on pure noise)
	python3 - "$RANDOM" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
w, h = 23, 17
pix = bytes(min(255, 3 * x + 2 * y + 40 + rng.randrange(8)) for y in range(h) for x in range(w))
open("in.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + pix)
PY
	for s in "--mean 3" "--gaussian 1" "--unsharp 1" "--median 3" "--erode 3" "--dilate 3" \
		"--open 3" "--close 3" "--sobel" "--scharr" "--laplacian" "--convolve 3x3:1,2,1,0,0,0,1,2,1"; do
		"$GPUFILT" in.pgm -o c.pgm $s -q
		changed=0
		for v in 0 255; do
			"$GPUFILT" in.pgm -o a.pgm $s --border constant=$v -q
			"$GPUFILT" in.pgm --border constant=$v -o b.pgm $s -q
			cmp a.pgm b.pgm || { echo "$s: --border depends on its place"; false; }
			cmp -s a.pgm c.pgm || changed=1
		done
		[ $changed = 1 ] || { echo "$s: --border constant changed nothing"; false; }
	done
}

@test "neighbourhood stages run in flag order and repeat" {
	python3 "$ROOT/tests/cli/ref.py" random 40 30 "$RANDOM" in.pgm
	"$GPUFILT" in.pgm -o ab.pgm --median 3 --gaussian 1 -q
	"$GPUFILT" in.pgm -o a.pgm --median 3 -q
	"$GPUFILT" a.pgm -o a_b.pgm --gaussian 1 -q
	cmp ab.pgm a_b.pgm
	"$GPUFILT" in.pgm -o ba.pgm --gaussian 1 --median 3 -q
	run ! cmp -s ab.pgm ba.pgm
}

@test "bad neighbourhood values exit 64, name the flag and write nothing" {
	python3 "$ROOT/tests/cli/ref.py" random 9 9 "$RANDOM" in.pgm
	for args in "--mean 4" "--mean 65" "--mean 3x0" "--gaussian 0.05" "--gaussian 2,4" \
		"--unsharp 1,11" "--median 2" "--median 65" "--erode 64" "--open 3x2" \
		"--convolve 3x3:1,2" "--convolve 17x1:1" "--divisor 0 --convolve 1x1:1" \
		"--border mirror --mean 3"; do
		run "$GPUFILT" in.pgm -o out.pgm $args
		[ "$status" -eq 64 ] || { echo "$args: exit $status"; false; }
		flag=${args%% *}
		[[ "$output" == *"gpufilt: $flag"* ]] || { echo "$args: $output"; false; }
		[ ! -e out.pgm ]
	done
}
