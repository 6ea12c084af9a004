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
#   variants  test_gpu alone: every variant against the gold (GPU_STAGES, a
#             regular expression of stage names, keeps to those; GPU_MAX_PIXELS
#             leaves out larger random sizes; TEST_ARGS adds arguments, --small)
#   sanitize  test_gpu --small under each compute-sanitizer tool (GPU_STAGES too)
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
if [ -n "${PREBUILT:-}" ]; then
	mkdir -p build/cuda
	cp "$PREBUILT/gpufilt" build/cuda/gpufilt && cp "$PREBUILT/test_gpu" build/cuda/test_gpu &&
		cp build/cuda/gpufilt gpufilt || exit 1
else
	$mk gpufilt build/cuda/test_gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
	echo "built in $(($(date +%s) - t0)) s"
fi
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
[ $# -gt 0 ] || set -- test-gpu bench
for step; do
	t0=$(date +%s)
	echo "=== $step"
	case $step in
	test-gpu) $mk test-gpu >/tmp/test-gpu.log 2>&1
		echo "test-gpu exit $?"
		grep -E 'FAIL|MISMATCH|differs|test-gpu|passed|ERROR SUMMARY: [1-9]|^==|error' /tmp/test-gpu.log |
			grep -v 'COMPUTE-SANITIZER' | head -60 | tee "$out/test-gpu.log" ;;
	bench) $mk B=build/peers PEERS=1 build/peers/gpufilt >>"$out/build.log" 2>&1
		build/peers/gpufilt bench 2>&1 | tee "$out/bench.log" ;;
	variants) GPUFILT_TEST_STAGES=${GPU_STAGES:-} GPUFILT_TEST_MAX_PIXELS=${GPU_MAX_PIXELS:-} \
			build/cuda/test_gpu ${TEST_ARGS:-} \
			$(ls samples/*.png samples/*.jpg 2>/dev/null) >"$out/variants.log" 2>&1
		echo "variants exit $?"; grep -E 'FAIL|passed|seed|^inexact' "$out/variants.log" | head -40 ;;
	sanitize) for tool in memcheck racecheck initcheck synccheck; do
			GPUFILT_TEST_STAGES=${GPU_STAGES:-} "$cs" --tool $tool --error-exitcode 99 \
				--print-limit 10 build/cuda/test_gpu --small >"$out/san-$tool.log" 2>&1
			echo "$tool exit $?"; grep -E 'FAIL|passed|ERROR SUMMARY' "$out/san-$tool.log" | head -5
		done ;;
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
		timeout 560 sh bench/batch_bench.sh "${BATCH_N:-2000}" "${BATCH_R:-1}" 2>&1 | tee "$out/batch.log" ;;
	*) echo "unknown step $step" ;;
	esac
	echo "=== $step: $(($(date +%s) - t0)) s"
done
