#!/bin/sh
# device-run.sh - on a GPU machine without libstb-dev/libdeflate-dev: build
# with the headers and static libdeflate carried in .devdeps/, run make
# test-gpu, then time the stages at 8000x8000 and a 5120x2880 photo end to end.
# Logs go to $OUT (or ./bench-out).
set -u
out=${OUT:-bench-out}
mkdir -p "$out"
mk="make -j16 SKIP_DEPS=1 PEERS=${PEERS:-0} CUDA_ARCHS=${CUDA_ARCHS:-90} STB_CFLAGS=-I.devdeps/include DEFLATE_LIBS=.devdeps/lib/libdeflate.a"
$mk gpufilt build/test_gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
[ "${SKIP_TEST:-0}" = 1 ] || $mk test-gpu 2>&1 | tee "$out/test-gpu.log" | grep -v '^=\+ \(COMPUTE\|ERROR SUMMARY: 0\)' | tail -40
./gpufilt bench ${BENCH:-} 2>&1 | tee "$out/bench.log"
./gpufilt bench mean --json --reps 5 >"$out/bench.json" 2>&1

./gpufilt samples/astronaut.png -o /tmp/astro.pgm -q
python3 bench/large_photo.py /tmp/astro.pgm 5120 2880 /tmp/big.pgm
./gpufilt /tmp/big.pgm --mean 5 --mean 5 -o /tmp/big.png -q
for i in 1 2 3; do ./gpufilt /tmp/big.png -o /tmp/big-out.png --mean 5 2>&1; done | tee "$out/e2e.log" | tail -12
