#!/bin/sh
# run_bats.sh - runs bats with the given arguments, as it would run, then,
# if any test failed, prints each failure's lines again at the end: a CI log
# shown only by its head and tail still names what failed and why.
# Exit status: bats's.
log=$(mktemp "${TMPDIR:-/tmp}/gpufilt-bats.XXXXXX") || exit 70
trap 'rm -f "$log"' EXIT
status=0
{ bats "$@" 2>&1 || echo "gpufilt-bats-status $?"; } | tee "$log" | grep -v '^gpufilt-bats-status '
status=$(sed -n 's/^gpufilt-bats-status //p' "$log")
if [ -n "$status" ]; then
	echo "== the failures again (bats $*):"
	awk '/^not ok /{p=1; n=0} /^ok /{p=0} p && n++ < 60' "$log" | grep -v '^gpufilt-bats-status '
	exit "$status"
fi
exit 0
