# shellcheck shell=sh
# python.sh - sourced by the bench scripts: pick_python MODULES prints the
# first of python3 and /usr/bin/python3 that imports MODULES ("cv2, PIL"),
# or python3 when neither does (its import error then says what is missing);
# work_dir sets w to a new folder under $BENCH_DIR (default $TMPDIR or /tmp),
# removed when the script exits; bench_devices prints the gpufilt columns to
# run, one --device value each: $DEVICES where set, else "0 all" where
# `nvidia-smi -L` lists two GPUs or more, "0" where it lists one, and
# "default" (no --device: gpufilt's default backend) without nvidia-smi or
# a GPU; gpu_count prints how many GPUs `nvidia-smi -L` lists (0 without
# it); device_args ENTRY prints the arguments of a column, key ENTRY a file
# name for it; now prints the time in seconds, secs T0 T1 the seconds
# between two; median LABEL FILE UNIT the median and range of FILE's
# numbers, one a line; columns_ratio LABEL COLUMN... each other column's
# rates over the first's (in $w/rates.KEY, one a run), run by run, and their
# median.
pick_python() {
	for p in python3 /usr/bin/python3; do
		if $p -c "import $1" 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	echo python3
}

work_dir() {
	w=$(mktemp -d -p "${BENCH_DIR:-${TMPDIR:-/tmp}}")
	trap 'rm -rf "$w"' EXIT
}

gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true; }

bench_devices() {
	if [ -n "${DEVICES:-}" ]; then
		echo "$DEVICES"
		return
	fi
	ngpu=$(gpu_count)
	if [ "$ngpu" -ge 2 ]; then
		echo "0 all"
	elif [ "$ngpu" -eq 1 ]; then
		echo 0
	else
		echo default
	fi
}

device_args() {
	[ "$1" = default ] || echo "--device $1"
}

now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.3f", $2 - $1 }'; }
key() { echo "$1" | tr -c 'a-zA-Z0-9\n' _; }

median() {
	sort -g "$2" | awk -v l="$1" -v u="$3" '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "  %s: %.2f%s, median of %d (%.2f-%.2f)\n", l, m, u, NR, v[1], v[NR] }'
}

columns_ratio() {
	clabel=$1 first=$2
	shift 2
	for d; do
		paste "$w/rates.$(key "$first")" "$w/rates.$(key "$d")" |
			awk '{ print ($1 > 0 ? $2 / $1 : 0) }' >"$w/by_first"
		median "$clabel --device $d / --device $first" "$w/by_first" x
	done
}
