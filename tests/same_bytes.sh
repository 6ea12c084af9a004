#!/bin/sh
# same_bytes.sh GPUFILT [BACKEND [EXT...]] - one large photo-like image
# (4000x3000 RGB: smooth waves and noise, made by numpy) written COUNT times
# (default 200) to each output format EXT (default: png jpg; a format that
# gpufilt can write is one more word) with --backend BACKEND (default cpu),
# and every output's bytes must be equal. The writes are batches of BATCH
# links to the one file (--jobs JOBS workers in one process), each batch
# beside PROCS single-file processes (PROCS writes of the COUNT), so the
# cores are shared as in a loaded run. Prints the number of files and of
# distinct SHA-256 hashes per format; exits 1 when any format has more than
# one. Environment: SAME_BYTES_COUNT, SAME_BYTES_BATCH (50),
# SAME_BYTES_JOBS (4), SAME_BYTES_PROCS (2), SAME_BYTES_STAGES (stages to
# run before writing, e.g. "--mean 3" so that a GPU makes the pixels;
# default none), SAME_BYTES_DIR (the scratch folder's parent, default
# $TMPDIR or /tmp).
set -u
[ $# -ge 1 ] || { echo "usage: same_bytes.sh GPUFILT [BACKEND [EXT...]]" >&2; exit 64; }
gpufilt=$1
backend=${2:-cpu}
shift
[ $# -ge 1 ] && shift
exts=${*:-png jpg}
count=${SAME_BYTES_COUNT:-200}
batch=${SAME_BYTES_BATCH:-50}
jobs=${SAME_BYTES_JOBS:-4}
procs=${SAME_BYTES_PROCS:-2}
stages=${SAME_BYTES_STAGES:-}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/python.sh"
t=$(mktemp -d -p "${SAME_BYTES_DIR:-${TMPDIR:-/tmp}}")
trap 'rm -rf "$t"' EXIT
status=0

"$(pick_python numpy)" - "$t/big.ppm" <<'PY' || { echo "same_bytes: cannot make the image (numpy)"; exit 1; }
import sys
import numpy as np
w, h = 4000, 3000
rng = np.random.default_rng(20261125)
y, x = np.mgrid[0:h, 0:w].astype(np.float32)
img = np.empty((h, w, 3), np.float32)
for c in range(3):
    f = rng.uniform(0.002, 0.02, 4)
    img[..., c] = (128 + 50 * np.sin(x * f[0] + y * f[1] + c) + 40 * np.cos(x * f[2] - y * f[3])
                   + 20 * np.sin((x * x + y * y) * 1e-6 * (c + 1)))
img += rng.normal(0, 6, (h, w, 1)).astype(np.float32)  # luma-like noise
img += rng.normal(0, 3, (h, w, 3)).astype(np.float32)  # and some in each channel
with open(sys.argv[1], "wb") as out:
    out.write(b"P6\n%d %d\n255\n" % (w, h))
    out.write(np.clip(img, 0, 255).astype(np.uint8).tobytes())
PY

for ext in $exts; do
	: >"$t/hashes"
	done_=0 round=0
	while [ "$done_" -lt "$count" ]; do
		round=$((round + 1))
		# this round: n writes, the batch's and the single processes'
		n=$((count - done_))
		[ "$n" -gt $((batch + procs)) ] && n=$((batch + procs))
		p=$procs
		[ "$p" -gt $((n - 1)) ] && p=$((n - 1))
		b=$((n - p))
		rm -rf "$t/in" "$t/out"
		mkdir -p "$t/in" "$t/out"
		i=0
		while [ $i -lt $b ]; do
			ln -s "$t/big.ppm" "$t/in/b$i.ppm"
			i=$((i + 1))
		done
		# shellcheck disable=SC2086 # the stages are words
		"$gpufilt" "$t"/in/*.ppm $stages -o "$t/out/{stem}.$ext" --backend "$backend" --jobs "$jobs" -q \
			2>"$t/batch.err" &
		pids=$!
		i=0
		while [ $i -lt "$p" ]; do
			# shellcheck disable=SC2086
			"$gpufilt" "$t/big.ppm" $stages -o "$t/out/p$i.$ext" --backend "$backend" -q 2>"$t/p$i.err" &
			pids="$pids $!"
			i=$((i + 1))
		done
		for pid in $pids; do
			wait "$pid" || { echo "same_bytes: $ext: gpufilt failed (round $round):"; cat "$t"/*.err; status=1; }
		done
		files=$(ls "$t/out" | wc -l)
		[ "$files" -eq "$n" ] || { echo "same_bytes: $ext: $files of $n files written"; status=1; }
		(cd "$t/out" && sha256sum -- *) >>"$t/hashes"
		done_=$((done_ + n))
	done
	distinct=$(cut -c1-64 "$t/hashes" | sort | uniq -c | sort -rn)
	ndistinct=$(echo "$distinct" | grep -c .)
	echo "same_bytes: $ext, --backend $backend${stages:+ $stages}: $(wc -l <"$t/hashes") files, $ndistinct distinct"
	if [ "$ndistinct" -ne 1 ]; then
		echo "$distinct" | sed 's/^/same_bytes:   /'
		status=1
	fi
done
exit $status
