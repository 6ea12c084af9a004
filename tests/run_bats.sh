#!/bin/sh
# run_bats.sh [BATS ARGUMENT...] - runs bats with the given arguments, its
# tests BATS_JOBS at a time (default: the cores this process may use; a
# file that must not overlap itself sets BATS_NO_PARALLELIZE_WITHIN_FILE),
# as it would run, then, if any test failed, prints each failure's lines
# again at the end: a CI log shown only by its head and tail still names
# what failed and why. Each test's time is on its line (bats --timing).
# Exit status: bats's.
log=$(mktemp "${TMPDIR:-/tmp}/gpufilt-bats.XXXXXX") || exit 70
trap 'rm -f "$log"' EXIT
jobs=${BATS_JOBS:-$(nproc 2>/dev/null || echo 1)}
# bats runs tests in parallel through GNU parallel
[ "$jobs" -gt 1 ] && command -v parallel >/dev/null || jobs=1
# tests side by side share the cores: OpenMP's idle threads wait asleep, not
# spinning (spinning, two test_stages side by side on 2 cores took 205 s,
# not 49)
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
status=0
{ bats --jobs "$jobs" --timing "$@" 2>&1 || echo "gpufilt-bats-status $?"; } | tee "$log" |
	grep -v '^gpufilt-bats-status '
status=$(sed -n 's/^gpufilt-bats-status //p' "$log")
if [ -n "$status" ]; then
	echo "== the failures again (bats $*):"
	awk '/^not ok /{p=1; n=0} /^ok /{p=0} p && n++ < 60' "$log" | grep -v '^gpufilt-bats-status '
	exit "$status"
fi
exit 0
