# python.sh - sourced by the bench scripts: pick_python MODULES prints the
# first of python3 and /usr/bin/python3 that imports MODULES ("cv2, PIL"),
# or python3 when neither does (its import error then says what is missing);
# work_dir sets w to a new folder under $BENCH_DIR (default $TMPDIR or /tmp),
# removed when the script exits.
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
