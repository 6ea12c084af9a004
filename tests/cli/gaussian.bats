#!/usr/bin/env bats
# --gaussian, --unsharp and --mean on every layout, awkward sizes and every
# border, against numpy and OpenCV, and their bad values
# (tests/cli/oracle_gaussian.py).

load helper

@test "--gaussian, --unsharp and --mean equal numpy and OpenCV on every layout; bad values exit 64" {
	run python3 "$ROOT/tests/cli/oracle_gaussian.py" "$GPUFILT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"checks passed"* ]]
}
