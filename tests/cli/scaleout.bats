#!/usr/bin/env bats
# Scale-out: --shard slurm, GNU parallel on one host, and a real single-node
# Slurm (Debian's slurm-wlm and munge, started by tests/cli/slurm.sh under a
# scratch directory) running samples/slurm/gpufilt-array.sbatch as written.

load helper

setup_file() {
	# one cluster for the file: its tests run one at a time (tests/run_bats.sh)
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	export SLURM_DIR="$(mktemp -d)"
	if [ "$(id -u)" = 0 ] && [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/munged ]; then
		sh "$ROOT/tests/cli/slurm.sh" up "$SLURM_DIR" >"$SLURM_DIR/up.log" 2>&1 &&
			export SLURM_CONF="$SLURM_DIR/slurm.conf"
	fi
}

teardown_file() {
	sh "$ROOT/tests/cli/slurm.sh" down "$SLURM_DIR"
	rm -rf "$SLURM_DIR"
}

# needs_slurm: skips when this machine cannot run the cluster (not root, or
# slurm-wlm missing: `make deps` installs it); fails when it should have.
needs_slurm() {
	[ "$(id -u)" = 0 ] || skip "the Slurm cluster needs root"
	[ -x /usr/sbin/slurmctld ] || skip "slurm-wlm missing (make deps)"
	[ -n "${SLURM_CONF:-}" ] || { cat "$SLURM_DIR/up.log"; false; }
}

# inputs N: N images of awkward sizes in in/, listed in list.txt
inputs() {
	mkdir -p in
	for i in $(seq 1 "$1"); do
		$REF random $((97 + 31 * i)) $((61 + 17 * i)) $((RANDOM + i)) "in/img$i.pgm"
	done
	cp "$SAMPLES/astronaut.png" "$SAMPLES/rocket.jpg" in/
	ls "$PWD"/in/* >list.txt
}

# same_as_one_process DIR ARGS...: DIR holds exactly the outputs one process
# writes with ARGS (each once: no other file, no temporary), byte for byte
same_as_one_process() {
	local dir=$1
	shift
	"$GPUFILT" --files-from list.txt --mean 5 --hist "ref/{stem}.csv" -o "ref/{stem}.png" "$@" -q
	(cd ref && ls) >want
	(cd "$dir" && ls) >got
	diff want got
	[ "$(wc -l <got)" -eq $((2 * $(wc -l <list.txt))) ]
	for f in ref/*; do cmp "$f" "$dir/${f#ref/}"; done
}

@test "--shard slurm takes the task's slice from the array's environment" {
	inputs 9
	slice() { # ID MIN STEP COUNT: the inputs of that task, by --dry-run
		SLURM_ARRAY_TASK_ID=$1 SLURM_ARRAY_TASK_MIN=$2 SLURM_ARRAY_TASK_STEP=$3 \
			SLURM_ARRAY_TASK_COUNT=$4 "$GPUFILT" --files-from list.txt --shard slurm \
			-o 'o/{stem}.png' --dry-run | cut -d' ' -f1 | xargs -n1 basename | tr '\n' ' '
	}
	want=$("$GPUFILT" --files-from list.txt --shard 2/4 -o 'o/{stem}.png' --dry-run |
		cut -d' ' -f1 | xargs -n1 basename | tr '\n' ' ')
	[ -n "$want" ]
	[ "$(slice 2 1 1 4)" = "$want" ]  # --array=1-4
	[ "$(slice 1 0 1 4)" = "$want" ]  # --array=0-3
	[ "$(slice 3 1 2 4)" = "$want" ]  # --array=1-7:2
	[ "$(slice 12 11 1 4)" = "$want" ] # --array=11-14
	# outside an array, or a task outside it: usage errors that say why
	run env -u SLURM_ARRAY_TASK_ID "$GPUFILT" --files-from list.txt --shard slurm -o o/
	[ "$status" -eq 64 ]
	[[ "$output" == *"SLURM_ARRAY_TASK_ID is not set"*"sbatch --array"* ]]
	run env SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 \
		"$GPUFILT" --files-from list.txt --shard slurm -o o/
	[ "$status" -eq 64 ]
	[[ "$output" == *"task 9 is not in an array from 1 by 1 of 4 tasks"* ]]
}

@test "--device takes N[,M...] (a GPU listed again too) or all, and refuses junk" {
	"$GPUFILT" "$SAMPLES/coins.png" -o a.png --device all --backend cpu -q
	"$GPUFILT" "$SAMPLES/coins.png" -o b.png --device 0,1 --backend cpu -q
	"$GPUFILT" "$SAMPLES/coins.png" -o d.png --device 1,1,0,0 --backend cpu -q
	cmp a.png b.png
	cmp a.png d.png
	# a batch over a GPU listed twice: on the GPU where there is one, else
	# on the CPU (--backend auto), the same bytes as one process on the CPU
	mkdir -p one two
	"$GPUFILT" "$SAMPLES/coins.png" "$SAMPLES/moon.png" -o 'one/{stem}.png' --mean 3 --backend cpu -q
	"$GPUFILT" "$SAMPLES/coins.png" "$SAMPLES/moon.png" -o 'two/{stem}.png' --mean 3 --device 0,0 -q
	cmp one/coins.png two/coins.png
	cmp one/moon.png two/moon.png
	for bad in "x" "0," ",1" "1,,1" "1024" "-1" "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"; do
		run "$GPUFILT" "$SAMPLES/coins.png" -o c.png --device "$bad" --backend cpu
		[ "$status" -eq 64 ] || { echo "--device $bad: $status"; false; }
		[[ "$output" == *"--device"* ]]
	done
	[ ! -e c.png ]
}

@test "GNU parallel: four shards on one host write every output once, as one process" {
	command -v parallel >/dev/null || skip "GNU parallel missing (make deps)"
	inputs 14
	parallel --will-cite -j 4 "$GPUFILT" --files-from list.txt --shard {}/4 --mean 5 \
		--hist "'out/{stem}.csv'" -o "'out/{stem}.png'" -q ::: 1 2 3 4
	same_as_one_process out
}

@test "Slurm: a job array of 4 tasks writes every output once, as one process" {
	needs_slurm
	inputs 14
	PATH="$(dirname "$GPUFILT"):$PATH" sbatch --wait --array=1-4 --quiet \
		"$ROOT/samples/slurm/gpufilt-array.sbatch" "$PWD/list.txt" "$PWD/out"
	same_as_one_process out
	# each task's log: its share processed, nothing failed
	for k in 1 2 3 4; do
		grep -q "processed, 0 failed" gpufilt-*_$k.log || { cat gpufilt-*_$k.log; false; }
	done
}

@test "Slurm: a task cancelled part way resumes where it stopped" {
	needs_slurm
	inputs 30
	# slow enough to stop part way: one worker, the smallest PNGs
	export PATH="$(dirname "$GPUFILT"):$PATH"
	job=$(sbatch --parsable --array=1-4 "$ROOT/samples/slurm/gpufilt-array.sbatch" \
		"$PWD/list.txt" "$PWD/out" --jobs 1 --png-level 12 -q)
	# task 2's slice: inputs 2, 6, 10, ... of the list
	mine=$(awk 'NR % 4 == 2' list.txt | xargs -n1 basename | sed 's/\.[a-z]*$/.png/')
	n=$(echo "$mine" | wc -l)
	done_now() { for f in $mine; do [ -e "out/$f" ] && echo "$f"; done | wc -l; }
	i=0
	until [ "$(done_now)" -ge 2 ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "task 2 wrote nothing"; false; }
		sleep 0.1
	done
	scancel "${job}_2"
	i=0
	while squeue -h -j "$job" 2>/dev/null | grep -q .; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "the array did not end"; false; }
		sleep 0.2
	done
	before=$(done_now)
	[ "$before" -lt "$n" ] || skip "task 2 finished before it was cancelled"
	no_temporaries out
	# the resubmitted array: the other tasks skip everything, task 2 its part
	again=$(sbatch --wait --parsable --array=1-4 "$ROOT/samples/slurm/gpufilt-array.sbatch" \
		"$PWD/list.txt" "$PWD/out" --jobs 1 --png-level 12)
	same_as_one_process out --png-level 12
	grep -q "$((n - before)) processed, 0 failed, $before skipped" "gpufilt-${again}_2.log" ||
		{ echo "task 2 of the resubmission:"; cat "gpufilt-${again}_2.log"; false; }
	grep -q "0 processed, 0 failed, $((n - 1)) skipped\|0 processed, 0 failed, $n skipped" \
		"gpufilt-${again}_1.log"
}
