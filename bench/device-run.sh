#!/bin/sh
# device-run.sh [STEP...] - on a GPU machine that lacks the Debian -dev
# packages: builds gpufilt against headers and static libraries carried in
# .devdeps/include and .devdeps/lib (libspng.so, libwebp.so and libwebpdemux.so
# there too, found through LD_LIBRARY_PATH), then runs each STEP:
#   test-gpu  make test-gpu (JPEGS=DIR adds a JPEG corpus)
#   bench     gpufilt bench, every experiment, sizes 8000x8000, 1920x1080, 640x480,
#             from a second build with the NPP and cuBLAS peers (build/peers:
#             those libraries take a one-off run 80 ms to load, so only bench has them)
#   damage    bench/jpeg_damage.sh
#   cpu       bench/cpu_vs_opencv.sh on this machine's cores
#   oneoff    bench/oneoff_bench.sh
#   batch     bench/batch_bench.sh (BATCH_N photos, 2000; BATCH_R rounds, 1), in
#             /dev/shm where it exists
#   thumbs    bench/thumbs_bench.sh (THUMBS_N photos, 2000; THUMBS_R rounds, 1),
#             in /dev/shm where it exists
#             (both pass on DEVICES, BATCH_* and THUMBS_LONG; each stops
#             when the call has run RUN_SECONDS, 570, build included)
#   variants, sanitize, oracle, compare, bytes, jpeg, encode, same
#             that step of make test-gpu alone (tests/gpu/run.sh: GPU_STAGES,
#             a regular expression of stage names, keeps variants, sanitize,
#             oracle, compare and bytes to those stages; GPU_TOOLS picks
#             sanitize's tools, GPU_PARALLEL=1 runs them at the same time;
#             GPU_MAX_PIXELS leaves out variants' larger
#             random sizes; TEST_ARGS adds test_gpu's arguments, --small)
#   memcheck, racecheck, initcheck, synccheck
#             sanitize with that compute-sanitizer tool alone
#   STEP=STAGES  any of these with GPU_STAGES=STAGES for that step alone:
#             the pieces of make test-gpu, a stage family each, e.g.
#             variants=gaussian memcheck=gaussian racecheck=gaussian
#             initcheck=gaussian synccheck=gaussian oracle=gaussian
#             compare=gaussian bytes=gaussian, and jpeg encode same
#             (PIECE_SECONDS, default 300, stops a piece that runs longer;
#             0 never does)
#   stencil   gpufilt bench of the neighbourhood stages (BENCH_EXPS, default
#             "mean gaussian"; BENCH_ARGS adds arguments), 8000x8000, from the
#             peers build (or the PREBUILT gpufilt, built with PEERS=1)
# Default: test-gpu bench. Logs go to $OUT (or bench-out). PREBUILT=DIR runs
# the gpufilt and test_gpu found in DIR (built elsewhere for this GPU)
# instead of building, for the steps that do not need the peers.
set -u
out=${OUT:-bench-out}
mkdir -p "$out"
LD_LIBRARY_PATH=$PWD/.devdeps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
mk="make -j$(nproc) SKIP_DEPS=1 CUDA_ARCHS=${CUDA_ARCHS:-90} DEP_CFLAGS=-I.devdeps/include DEP_LDFLAGS=-L.devdeps/lib"
t0=$(date +%s)
start=$t0
# left: the seconds a step may run before the call has run RUN_SECONDS
left() { l=$((${RUN_SECONDS:-570} - ($(date +%s) - start))); echo $((l > 10 ? l : 10)); }
if [ -n "${PREBUILT:-}" ]; then
	mkdir -p build/cuda
	cp "$PREBUILT/gpufilt" build/cuda/gpufilt && cp "$PREBUILT/test_gpu" build/cuda/test_gpu &&
		cp build/cuda/gpufilt gpufilt || exit 1
else
	$mk gpufilt build/cuda/test_gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
	echo "built in $(($(date +%s) - t0)) s"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
[ $# -gt 0 ] || set -- test-gpu bench
for step; do
	t0=$(date +%s)
	echo "=== $step"
	case ${step%%=*} in
	test-gpu) $mk test-gpu >/tmp/test-gpu.log 2>&1
		echo "test-gpu exit $?"
		grep -E 'FAIL|MISMATCH|differs|test-gpu|passed|ERROR SUMMARY: [1-9]|^==|error' /tmp/test-gpu.log |
			grep -v 'COMPUTE-SANITIZER' | head -60 | tee "$out/test-gpu.log" ;;
	bench) $mk B=build/peers PEERS=1 build/peers/gpufilt >>"$out/build.log" 2>&1
		build/peers/gpufilt bench 2>&1 | tee "$out/bench.log" ;;
	variants | sanitize | oracle | compare | bytes | jpeg | encode | same | \
		memcheck | racecheck | initcheck | synccheck)
		# a piece of make test-gpu: STEP or TOOL, =STAGES for GPU_STAGES
		piece=${step%%=*} stages=${GPU_STAGES:-} tools=${GPU_TOOLS:-}
		case $step in *=*) stages=${step#*=} ;; esac
		case $piece in *check) tools=$piece piece=sanitize ;; esac
		log=$out/$(echo "$step" | tr -c 'a-zA-Z0-9_.\n-' _).log
		GPU_STEPS=$piece GPU_STAGES=$stages GPU_TOOLS=$tools GPU_TEST_ARGS=${TEST_ARGS:-} \
			GPUFILT_TEST_MAX_PIXELS=${GPU_MAX_PIXELS:-} \
			timeout "${PIECE_SECONDS:-300}" sh tests/gpu/run.sh build/cuda/test_gpu >"$log" 2>&1
		rc=$?
		[ $rc = 124 ] && echo "$step: stopped after ${PIECE_SECONDS:-300} s"
		echo "$step exit $rc"
		grep -E 'FAIL|MISMATCH|differs|test-gpu|passed|seed|^inexact|ERROR SUMMARY|^==|error' "$log" |
			grep -v 'COMPUTE-SANITIZER' | head -40 ;;
	stencil) bin=build/peers/gpufilt
		if [ -n "${PREBUILT:-}" ]; then
			bin=build/cuda/gpufilt # a PREBUILT gpufilt built with PEERS=1 has them
		else
			$mk B=build/peers PEERS=1 build/peers/gpufilt >>"$out/build.log" 2>&1 ||
				{ tail -20 "$out/build.log"; continue; }
		fi
		$bin bench copy ${BENCH_EXPS:-mean gaussian} --size 8000x8000 ${BENCH_ARGS:-} 2>&1 |
			tee "$out/stencil.log" ;;
	damage) sh bench/jpeg_damage.sh 2>&1 | tee "$out/damage.log" ;;
	cpu) sh bench/cpu_vs_opencv.sh 2>&1 | tee "$out/cpu.log" ;;
	oneoff) sh bench/oneoff_bench.sh 2>&1 | tee "$out/oneoff.log" ;;
	batch) [ -d /dev/shm ] && BENCH_DIR=${BENCH_DIR:-/dev/shm} && export BENCH_DIR
		timeout "$(left)" sh bench/batch_bench.sh "${BATCH_N:-2000}" "${BATCH_R:-1}" 2>&1 |
			tee "$out/batch.log" ;;
	thumbs) [ -d /dev/shm ] && BENCH_DIR=${BENCH_DIR:-/dev/shm} && export BENCH_DIR
		timeout "$(left)" sh bench/thumbs_bench.sh "${THUMBS_N:-2000}" "${THUMBS_R:-1}" 2>&1 |
			tee "$out/thumbs.log" ;;
	*) echo "unknown step $step" ;;
	esac
	echo "=== $step: $(($(date +%s) - t0)) s"
done
