#!/bin/sh
# run.sh TEST_GPU - make test-gpu: every variant against the CPU reference on
# all sizes and samples, then the small sizes under each compute-sanitizer
# tool, then gpufilt --compare on every sample. Skips where no GPU is usable.
set -u
bin=$1
status=0
out=$("$bin" --small 2>&1 | head -1)
case $out in
SKIP*) echo "test-gpu: $out"; exit 0 ;;
esac
samples=$(ls samples/*.png samples/*.jpg samples/*.pgm 2>/dev/null)
echo "== variants against the CPU reference"
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
	for k in 3 5; do
		./gpufilt "$f" --mean "$k" --compare --backend cuda -q ||
			{ echo "test-gpu: $f --mean $k: --compare failed"; status=1; }
	done
done
[ $status = 0 ] && echo "test-gpu: all passed" || echo "test-gpu: FAILED"
exit $status
