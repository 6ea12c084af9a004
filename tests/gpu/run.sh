#!/bin/sh
# run.sh TEST_GPU - make test-gpu: every variant of every stage against the
# gold reference on all sizes, layouts and samples, then the small sizes
# under each compute-sanitizer tool, then gpufilt itself: every layout
# through every stage with --backend cuda against numpy and OpenCV
# (tests/cli/layouts.py; the neighbourhood stages: tests/cli/oracle_*.py;
# --resize against Pillow: tests/cli/oracle_resize.py; the tone stages
# against OpenCV, Pillow and numpy: tests/cli/oracle_tone.py; --clahe
# against OpenCV: tests/cli/oracle_clahe.py),
# --compare on every sample, the same output bytes from every backend and kernel variant on
# every layout, and nvJPEG's decode (colour and luma) against the CPU's in
# batches (a generated JPEG corpus, bad files and the JPEG fuzzing corpus
# with its findings), also under memcheck. Skips where no GPU is usable.
# Then one large image written 200 times with --backend cuda, as it is and
# through --mean 3, to PNG and JPEG, from batches and single processes at
# once: all the bytes equal (tests/same_bytes.sh).
# The pieces, each a GPU machine's call or a part of one:
#   GPU_STEPS   the steps (default all): variants sanitize oracle compare
#               bytes jpeg encode same
#   GPU_STAGES  an extended regular expression of stage names (mean,
#               gaussian, erode, mirror, hist, ...: test_gpu's
#               GPUFILT_TEST_STAGES): variants, sanitize, oracle, compare
#               and bytes keep to the stages it matches (an oracle or an
#               option list runs when any stage it runs matches); jpeg,
#               encode and same run no stage family and ignore it. A
#               GPU_STAGES that matches no stage of gpufilt --help's list fails.
#   GPU_TOOLS   sanitize's compute-sanitizer tools (default memcheck
#               racecheck initcheck synccheck); jpeg runs memcheck on the
#               nvJPEG path when GPU_TOOLS names it
#   GPU_TEST_ARGS  test_gpu's arguments before the samples in variants
#               (--small)
#   GPU_PARALLEL  1: sanitize runs its tools at the same time (each on a
#               core of its own, the GPU shared), printing each tool's log
#               whole when all are done; the tools take minutes each, so a
#               GPU machine's call fits them all
# e.g. GPU_STEPS=sanitize GPU_TOOLS=racecheck GPU_STAGES='gaussian|unsharp'.
set -u
steps=${GPU_STEPS:-variants sanitize oracle compare bytes jpeg encode same}
tools=${GPU_TOOLS:-memcheck racecheck initcheck synccheck}
stages_re=${GPU_STAGES:-}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
tool() { case " $tools " in *" $1 "*) return 0 ;; esac; return 1; }
# stage_names OPTION...: the stages an option list runs, a line each
# (--flip, --flop and --rotate 180 are the mirror stage, --transverse and
# --rotate 90|270 transpose; --border, --filter and --variant name none)
stage_names() {
	prev=
	for w; do
		case $prev$w in
		--border | --filter | --variant | --compare | --shared | --no-shared | --rotate) ;;
		--rotate180) echo mirror ;;
		--rotate*) echo transpose ;;
		--flip | --flop) echo mirror ;;
		--transverse) echo transpose ;;
		--*) echo "${w#--}" ;;
		esac
		prev=$([ "$w" = --rotate ] && echo "$w")
	done
}
# picked OPTION...: GPU_STAGES is empty or matches a stage the options run
picked() { [ -z "$stages_re" ] || stage_names "$@" | grep -Eq -- "$stages_re"; }
bin=$1
gpufilt=${GPUFILT:-./gpufilt}
status=0
# is a GPU usable? (test_gpu with no stage: its header line, or SKIP)
out=$(GPUFILT_TEST_STAGES='^$' "$bin" --small 2>&1 | head -1)
case $out in
SKIP*) echo "test-gpu: $out"; exit 0 ;;
esac
if [ -n "$stages_re" ]; then
	# the registered stages, as --help lists their variants
	names=$("$gpufilt" --help | sed -n '/^  variants:/,/^$/p' | grep -o '[a-z][a-z0-9]* (' | tr -d ' (')
	echo "$names" | grep -Eq -- "$stages_re" || {
		echo "test-gpu: GPU_STAGES '$stages_re' matches no stage of:" $names
		exit 1
	}
	echo "test-gpu: the stages matching '$stages_re':" $(echo "$names" | grep -E -- "$stages_re")
fi
samples=$(ls samples/*.png samples/*.jpg samples/*.pgm 2>/dev/null)
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t=$(mktemp -d)
if want variants; then
	echo "== variants against the gold reference${stages_re:+ (stages: $stages_re)}"
	GPUFILT_TEST_STAGES=$stages_re "$bin" ${GPU_TEST_ARGS:-} $samples || status=1
fi
if ! want sanitize; then
	:
elif [ -x "$cs" ]; then
	# san TOOL: test_gpu --small under compute-sanitizer's TOOL; 1 on errors
	san() {
		echo "== compute-sanitizer --tool $1${stages_re:+ (stages: $stages_re)}"
		GPUFILT_TEST_STAGES=$stages_re "$cs" --tool "$1" --error-exitcode 99 --print-limit 10 \
			"$bin" --small samples/coins.png || { echo "test-gpu: $1 found errors"; return 1; }
	}
	if [ "${GPU_PARALLEL:-0}" = 1 ]; then # every tool at once, each log whole in turn
		for tool in $tools; do
			(san "$tool" >"$t/san_$tool.log" 2>&1; echo $? >"$t/san_$tool.rc") &
		done
		wait
		for tool in $tools; do
			cat "$t/san_$tool.log"
			[ "$(cat "$t/san_$tool.rc")" = 0 ] || status=1
		done
	else
		for tool in $tools; do
			san "$tool" || status=1
		done
	fi
else
	echo "test-gpu: compute-sanitizer not found"; status=1
fi
if want oracle; then
	. bench/python.sh
	seed=${GPUFILT_TEST_SEED:-$(awk 'BEGIN { srand(); print int(rand() * 1073741824) }')}
	# each oracle with the stages it runs
	if picked --mean --threshold --transpose --flip --gray --depth --hist --colsum --rowsum; then
		echo "== every layout through every stage on the GPU, against numpy and OpenCV"
		"$(pick_python "numpy, cv2")" tests/cli/layouts.py "$gpufilt" "$seed" cuda || status=1
	fi
	for fam in "gaussian --gaussian --unsharp --mean" "median --median" \
		"morph --erode --dilate --open --close" "edges --sobel --scharr --laplacian --convolve"; do
		set -- $fam
		picked "$@" || continue
		shift
		echo "== $*: every layout and border on the GPU, against numpy and OpenCV"
		"$(pick_python "numpy, cv2")" tests/cli/oracle_${fam%% *}.py "$gpufilt" "$seed" cuda || status=1
	done
	if picked --clahe; then
		echo "== --clahe on the GPU, every layout, against OpenCV's createCLAHE"
		"$(pick_python "numpy, cv2, PIL")" tests/cli/oracle_clahe.py "$gpufilt" "$seed" cuda || status=1
	fi
	if picked --resize; then
		echo "== --resize on the GPU, every layout and filter, against Pillow (crop: the bytes step)"
		"$(pick_python "numpy, PIL")" tests/cli/oracle_resize.py "$gpufilt" "$seed" cuda pillow ||
			status=1
	fi
	if picked --equalize --autocontrast --level --gamma --negate; then
		echo "== the tone stages on the GPU, every layout, against OpenCV, Pillow and numpy"
		"$(pick_python "numpy, cv2, PIL")" tests/cli/oracle_tone.py "$gpufilt" "$seed" cuda || status=1
	fi
fi
if want compare; then
echo "== gpufilt --compare on the samples"
for f in $samples; do
	for stages in "--mean 3" "--mean 5 --border reflect101" "--gray --threshold otsu --rowsum -" \
		"--rotate 90 --hist -" "--flop --colsum -" "--depth 16 --mean 5 --transpose --hist -" \
		"--threshold 100 --flip --rowsum -" "--resize 333x222! --mean 3" \
		"--filter box --resize 25% --crop 40x30+3+2 --hist -" "--equalize --mean 3" \
		"--autocontrast 2 --level 10%,90%,1.5 --gamma 2.2 --negate --hist -" \
		"--clahe --hist -" "--clahe 4,3x2"; do
		picked $stages || continue
		"$gpufilt" "$f" $stages --compare --backend cuda -q >/dev/null ||
			{ echo "test-gpu: $f $stages: --compare failed"; status=1; }
	done
done
fi
if want bytes; then
echo "== every backend and variant writes the same bytes, on every layout"
# a random PAM of every layout, in plain Python
python3 - "$t" <<'PY'
import random, sys
rng = random.Random()
tup = {1: "GRAYSCALE", 2: "GRAYSCALE_ALPHA", 3: "RGB", 4: "RGB_ALPHA"}
for c in (1, 2, 3, 4):
    for bits in (8, 16):
        w, h, n = 1001, 333, 1001 * 333 * c
        data = bytes(rng.getrandbits(8) for _ in range(n * bits // 8))
        hdr = "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n" % (
            w, h, c, (1 << bits) - 1, tup[c])
        open("%s/in-%d-%d.pam" % (sys.argv[1], c, bits), "wb").write(hdr.encode() + data)
PY
for in in "$t"/in-*.pam; do
	for stages in "--mean 5" "--mean 3 --border constant=9" "--threshold 100" "--gray --threshold otsu" \
		"--transpose" "--rotate 270" "--rotate 180" "--flip" "--flop" "--gray" "--depth 8" "--depth 16" \
		"--mean 7x3" "--gaussian 1.5" "--unsharp 1,1.5,2" "--median 3" "--median 9" "--erode 5" \
		"--close 9x3" "--sobel" "--scharr --border reflect101" "--laplacian" \
		"--convolve 3x3:1,-2,1,2,-4,2,1,-2,1" "--resize 317x211!" "--filter bilinear --resize 150%" \
		"--filter nearest --resize 77x500!" "--filter bicubic --resize 1000x1!" \
		"--crop 500x200+13+7" "--crop 64x64+990+320 --mean 3" "--equalize" "--autocontrast 2" \
		"--level 10%,90%,1.5" "--gamma 2.2" "--negate" \
		"--clahe" "--clahe 0,3x7" "--clahe 40,1x1" "--clahe 1,64x64"; do
		picked $stages || continue
		"$gpufilt" "$in" $stages -o "$t/cpu.png" --backend cpu -q
		# every variant for 8-bit gray; the defaults for the other layouts
		# (test_gpu checks every variant on every layout against the gold)
		case $in in *in-1-8.pam) vs='"" --shared --no-shared "--variant vector" "--variant constant" "--variant texture"' ;; *) vs='""' ;; esac
		eval "set -- $vs"
		for v; do
			"$gpufilt" "$in" $stages -o "$t/gpu.png" --backend cuda $v -q 2>/dev/null || continue
			cmp -s "$t/cpu.png" "$t/gpu.png" ||
				{ echo "test-gpu: ${in##*/} $stages $v: the GPU's PNG differs from the CPU's"; status=1; }
		done
	done
	for r in hist colsum rowsum; do
		picked --$r || continue
		"$gpufilt" "$in" --$r "$t/cpu.csv" --backend cpu -q
		case $in in *in-1-8.pam) vs="global shared byte word split warp vector" ;; *) vs=default ;; esac
		for v in $vs; do
			opt=$([ $v = default ] || echo "--variant $v")
			"$gpufilt" "$in" --$r "$t/gpu.csv" --backend cuda $opt -q 2>/dev/null ||
				continue
			cmp -s "$t/cpu.csv" "$t/gpu.csv" ||
				{ echo "test-gpu: ${in##*/} --$r --variant $v: differs from the CPU"; status=1; }
		done
	done
done
fi
if want jpeg; then
echo "== JPEGs decoded by nvJPEG give the CPU's pixels, in batches with bad files and the fuzzing corpus"
# JPEGS: a folder of JPEG files; else the corpus of make_jpegs.sh, where
# cjpeg and convert exist, else the samples' JPEGs only.
jpegs=${JPEGS:-}
if [ -z "$jpegs" ]; then
	if command -v cjpeg >/dev/null && command -v convert >/dev/null &&
		sh tests/data/make_jpegs.sh "$t/jpegs" >/dev/null 2>&1; then
		jpegs=$t/jpegs
	else
		echo "test-gpu: no cjpeg or convert: the samples' JPEGs only (set JPEGS=DIR for more)"
		mkdir -p "$t/jpegs" && cp samples/*.jpg "$t/jpegs/" && jpegs=$t/jpegs
	fi
fi
mkdir -p "$t/in"
cp "$jpegs"/*.jpg "$t/in/"
# nvJPEG takes about 0.3 s to open and files meanwhile go to the CPU: 400
# links to one 12 MP photo go first, so the batch outlasts that
"$gpufilt" samples/astronaut.png -o "$t/astro.ppm" -q
python3 bench/large_photo.py "$t/astro.ppm" 4000 3000 "$t/big.ppm"
"$gpufilt" "$t/big.ppm" -o "$t/big.jpg" -q
for i in $(seq 100 499); do ln "$t/big.jpg" "$t/in/0-big$i.jpg"; done
head -c 3000 samples/rocket.jpg >"$t/in/zz-truncated.jpg"
# the JPEG fuzzing corpus and its findings (tests/fuzz/corpus/jpeg)
for f in tests/fuzz/corpus/jpeg/*; do cp "$f" "$t/in/zz-fuzz-${f##*/}"; done
echo "not a JPEG" >"$t/in/zz-text.jpg"
cp samples/camera.png samples/coins.pgm "$t/in/" # other formats in the same batch
# in colour (nvJPEG's planes, made RGB on the GPU) and, with --gray first,
# the luma (nvJPEG's Y plane)
for first in "" "--gray"; do
	for be in cpu cuda; do
		rm -rf "$t/$be"
		"$gpufilt" "$t"/in/* $first --mean 3 -o "$t/$be/{stem}.png" --backend $be --jobs 8 \
			--timings json 2>"$t/$be.json" >/dev/null
		echo "$?" >"$t/$be.rc"
		grep -o '"input":"[^"]*","status":[0-9]*' "$t/$be.json" | sort >"$t/$be.failed"
	done
	grep -q '"jpeg-gpu"' "$t/cuda.json" ||
		{ echo "test-gpu: $first nvJPEG decoded none of the JPEGs"; status=1; }
	echo "test-gpu: ${first:-colour}: nvJPEG decoded $(grep -c '"jpeg-gpu"' "$t/cuda.json") files"
	cmp -s "$t/cpu.rc" "$t/cuda.rc" && cmp -s "$t/cpu.failed" "$t/cuda.failed" || {
		echo "test-gpu: $first the backends fail different files (exit $(cat "$t/cpu.rc") and $(cat "$t/cuda.rc")):"
		diff "$t/cpu.failed" "$t/cuda.failed" | sed 's/^/test-gpu: /'
		status=1
	}
	for f in "$t"/cpu/*.png; do
		cmp -s "$f" "$t/cuda/${f##*/}" || {
			stem=${f##*/}
			by=$(grep -F "/${stem%.png}." "$t/cuda.json" | grep -q '"jpeg-gpu"' &&
				echo "decoded by nvJPEG" || echo "decoded on the CPU")
			echo "test-gpu: $first $stem: nvJPEG's decode differs from the CPU's ($by;" \
				"$(cmp -l "$f" "$t/cuda/$stem" 2>/dev/null | wc -l) PNG bytes differ)"
			status=1
		}
	done
done
# each lane preallocates the hardware decoder's buffers for the largest
# batch it has seen and again when one needs more, with the other lanes
# held off: 6 MP photos, then 12 MP ones, make them grow while the other
# lane decodes (the first 6 MP files go to the CPU while nvJPEG opens)
mkdir -p "$t/grow"
python3 bench/large_photo.py "$t/astro.ppm" 3000 2000 "$t/mid.ppm"
"$gpufilt" "$t/mid.ppm" -o "$t/mid.jpg" -q
for i in $(seq 1000 1999); do ln "$t/mid.jpg" "$t/grow/a$i.jpg"; done
for i in $(seq 100 299); do ln "$t/big.jpg" "$t/grow/b$i.jpg"; done
for be in cpu cuda; do
	"$gpufilt" "$t"/grow/*.jpg --rowsum "$t/grow-$be/{stem}-rows.csv" \
		--colsum "$t/grow-$be/{stem}-cols.csv" --backend $be --jobs 8 --timings json \
		2>"$t/grow-$be.json" >/dev/null || { echo "test-gpu: growing batches: $be failed"; status=1; }
done
mid=$(grep '"jpeg-gpu"' "$t/grow-cuda.json" | grep -c '/grow/a')
big=$(grep '"jpeg-gpu"' "$t/grow-cuda.json" | grep -c '/grow/b')
echo "test-gpu: growing batches: nvJPEG decoded $mid of the 6 MP and $big of the 12 MP files"
[ "$big" -gt 0 ] || { echo "test-gpu: growing batches: nvJPEG decoded none of the 12 MP files"; status=1; }
diff -r "$t/grow-cpu" "$t/grow-cuda" >/dev/null ||
	{ echo "test-gpu: growing batches: $(diff -rq "$t/grow-cpu" "$t/grow-cuda" | wc -l) profiles differ from the CPU's"; status=1; }
if tool memcheck && [ -x "$cs" ]; then
	echo "== nvJPEG under compute-sanitizer memcheck"
	"$cs" --tool memcheck --error-exitcode 99 --print-limit 10 "$gpufilt" "$t"/in/s4*-1*.jpg \
		"$t/in/zz-truncated.jpg" "$t"/in/zz-fuzz-* --mean 5 -o "$t/cs/{stem}.png" --backend cuda \
		--jobs 4 -q
	[ $? = 99 ] && { echo "test-gpu: memcheck found errors in the nvJPEG path"; status=1; }
fi
fi
if want encode; then
echo "== nvJPEG encodes JPEG output with --backend cuda, gray and RGB"
for first in "--gray" ""; do
	ext=$([ -n "$first" ] && echo pgm || echo ppm)
	"$gpufilt" samples/rocket.jpg $first --mean 3 -o "$t/enc-gpu.jpg" --backend cuda -q &&
		"$gpufilt" samples/rocket.jpg $first --mean 3 -o "$t/enc-cpu.$ext" --backend cpu -q &&
		"$gpufilt" "$t/enc-gpu.jpg" -o "$t/enc-gpu.$ext" --backend cpu -q &&
		python3 - "$t/enc-cpu.$ext" "$t/enc-gpu.$ext" <<'PY' || { echo "test-gpu: nvJPEG's JPEG is not the image ($ext)"; status=1; }
import sys
def pnm(p):
    d = open(p, "rb").read().split(b"\n", 3)
    return d[1], d[3]
(sa, a), (sb, b) = pnm(sys.argv[1]), pnm(sys.argv[2])
err = sum(abs(x - y) for x, y in zip(a, b)) / max(1, len(a))
print("nvJPEG quality 90, %s: mean absolute error %.2f" % (sys.argv[1][-3:], err))
sys.exit(0 if sa == sb and len(a) == len(b) and err < 3.5 else 1)
PY
done
fi
if want same; then
echo "== one large image written 200 times with --backend cuda: the same bytes"
for st in "" "--mean 3"; do
	SAME_BYTES_STAGES=$st SAME_BYTES_COUNT=${SAME_BYTES_COUNT:-200} \
		sh tests/same_bytes.sh "$gpufilt" cuda png jpg tif webp || status=1
done
fi
rm -rf "$t"
[ $status = 0 ] && echo "test-gpu: all passed" || echo "test-gpu: FAILED"
exit $status
