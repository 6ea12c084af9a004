# helper.bash - shared setup for the CLI tests: a scratch directory per test,
# the binary under test and the samples. The tools the tests call are the
# Debian packages' own (scripts/deps.sh checks them by dpkg): /usr/bin comes
# first on PATH, so no other `convert` or `python3` stands in for them.
export PATH="/usr/bin:/bin:$PATH"
# `run ! CMD` (1.5.0): a bare `! CMD` fails no test unless it is the last
# line (bash's errexit ignores a negated command, and every command of an
# `A && B` list but the last). Outside bats (edges.bats sources this file
# in bash) there is no such function.
if declare -F bats_require_minimum_version >/dev/null; then
	bats_require_minimum_version 1.5.0
fi
export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
GPUFILT="${GPUFILT:-$ROOT/gpufilt}"
REF="python3 $ROOT/tests/cli/ref.py"
export SAMPLES="$ROOT/samples"

# Each test's random seed: GPUFILT_TEST_SEED when set, else a fresh one. It
# is printed (bats shows it beside a failure) and seeds bash's RANDOM, so
# every $RANDOM of the test, the oracles' seeds and the images drawn with
# them follow from it: GPUFILT_TEST_SEED=N bats ... replays a failure.
setup() {
	T="$(mktemp -d)"
	cd "$T"
	TEST_SEED=${GPUFILT_TEST_SEED:-$((RANDOM << 15 | RANDOM))}
	echo "seed $TEST_SEED (GPUFILT_TEST_SEED=$TEST_SEED replays it)"
	RANDOM=$TEST_SEED
}

teardown() {
	cd /
	rm -rf "$T"
}

# gives WANT ARG...: gpufilt ARG..., whose output is -o got.pgm, writes
# WANT's bytes (ARG... as given: where each word goes is what is tested).
gives() {
	local want=$1
	shift
	rm -f got.pgm
	"$GPUFILT" "$@"
	cmp got.pgm "$want"
}

# takes_default OPT WANT WANT_MEAN: OPT given with no value (its default)
# before -o, before the input, at the end, and before another option
# (--mean 3) gives WANT of in.pgm, and WANT_MEAN with that --mean 3.
takes_default() {
	gives "$2" in.pgm "$1" -o got.pgm -q
	gives "$2" "$1" in.pgm -o got.pgm -q
	gives "$2" in.pgm -o got.pgm -q "$1"
	gives "$3" in.pgm -o got.pgm "$1" --mean 3 -q
}

# No file of this directory is a leftover temporary.
no_temporaries() {
	! ls -A "${1:-.}" | grep -q 'gpufilt-'
}
