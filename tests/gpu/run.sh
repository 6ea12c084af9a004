#!/bin/sh
# run.sh TEST_GPU - make test-gpu: every variant of every stage against the
# gold reference on all sizes and samples, then the small sizes under each
# compute-sanitizer tool, then gpufilt itself: --compare on every sample, and
# the same output bytes from every backend and kernel variant. Skips where no
# GPU is usable.
set -u
bin=$1
gpufilt=${GPUFILT:-./gpufilt}
status=0
out=$("$bin" --small 2>&1 | head -1)
case $out in
SKIP*) echo "test-gpu: $out"; exit 0 ;;
esac
samples=$(ls samples/*.png samples/*.jpg samples/*.pgm 2>/dev/null)
echo "== variants against the gold reference"
"$bin" $samples || status=1
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$cs" ]; then
	for tool in memcheck racecheck initcheck synccheck; do
		echo "== compute-sanitizer --tool $tool"
		"$cs" --tool "$tool" --error-exitcode 99 --print-limit 10 "$bin" --small samples/coins.png ||
			{ echo "test-gpu: $tool found errors"; status=1; }
	done
else
	echo "test-gpu: compute-sanitizer not found"; status=1
fi
echo "== gpufilt --compare on the samples"
for f in $samples; do
	for stages in "--mean 3" "--mean 5 --border reflect101" "--threshold otsu --rowsum -" \
		"--rotate 90 --hist -" "--flop --colsum -"; do
		"$gpufilt" "$f" $stages --compare --backend cuda -q >/dev/null ||
			{ echo "test-gpu: $f $stages: --compare failed"; status=1; }
	done
done
echo "== every backend and variant writes the same bytes"
t=$(mktemp -d)
python3 tests/cli/ref.py random 1001 333 $$ "$t/in.pgm"
for stages in "--mean 5" "--mean 3 --border constant=9" "--threshold 100" "--threshold otsu" \
	"--transpose" "--rotate 270" "--rotate 180" "--flip" "--flop"; do
	"$gpufilt" "$t/in.pgm" $stages -o "$t/cpu.png" --backend cpu -q
	for v in "" --shared --no-shared "--variant vector"; do
		"$gpufilt" "$t/in.pgm" $stages -o "$t/gpu.png" --backend cuda $v -q 2>/dev/null || continue
		cmp -s "$t/cpu.png" "$t/gpu.png" ||
			{ echo "test-gpu: $stages $v: the GPU's PNG differs from the CPU's"; status=1; }
	done
done
for r in hist colsum rowsum; do
	"$gpufilt" "$t/in.pgm" --$r "$t/cpu.csv" --backend cpu -q
	for v in global shared byte word split warp; do
		"$gpufilt" "$t/in.pgm" --$r "$t/gpu.csv" --backend cuda --variant $v -q 2>/dev/null ||
			continue
		cmp -s "$t/cpu.csv" "$t/gpu.csv" ||
			{ echo "test-gpu: --$r --variant $v: differs from the CPU"; status=1; }
	done
done
rm -rf "$t"
[ $status = 0 ] && echo "test-gpu: all passed" || echo "test-gpu: FAILED"
exit $status
