# helper.bash - shared setup for the CLI tests: a scratch directory per test,
# the binary under test and the samples. The tools the tests call are the
# Debian packages' own (scripts/deps.sh checks them by dpkg): /usr/bin comes
# first on PATH, so no other `convert` or `python3` stands in for them.
export PATH="/usr/bin:/bin:$PATH"
export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
GPUFILT="${GPUFILT:-$ROOT/gpufilt}"
REF="python3 $ROOT/tests/cli/ref.py"
export SAMPLES="$ROOT/samples"

setup() {
	T="$(mktemp -d)"
	cd "$T"
}

teardown() {
	cd /
	rm -rf "$T"
}

# No file of this directory is a leftover temporary.
no_temporaries() {
	! ls -A "${1:-.}" | grep -q 'gpufilt-'
}
