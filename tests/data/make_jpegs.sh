#!/bin/sh
# make_jpegs.sh OUTDIR [big] - a corpus of valid JPEG files that covers what
# gpufilt's JPEG rule must hold for: every chroma subsampling libjpeg-turbo
# writes (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1), gray, progressive, restart
# markers, arithmetic coding, optimised Huffman tables, RGB (no colour
# transform), qualities 50 to 100 and sizes from 1x1 up, odd ones included.
# Sources are the sample photos, resized by ImageMagick; encoding is cjpeg's
# (libjpeg-turbo-progs). Names read CLASS-WxH-qQ.jpg. With "big", also
# 2400x1600 and 4000x3000 photos. Needs convert(1) and cjpeg(1).
set -eu
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src() { # src SAMPLE W H -> $tmp/SAMPLE-WxH.ppm
	f="$tmp/$1-$2x$3.ppm"
	[ -e "$f" ] || convert "$root/samples/$1" -resize "$2x$3!" -depth 8 "ppm:$f"
	echo "$f"
}

n=0
enc() { # enc CLASS SAMPLE W H Q CJPEG-OPTIONS...
	cls=$1 s=$2 w=$3 h=$4 q=$5
	shift 5
	p=$(src "$s" "$w" "$h")
	case $cls in gray*) convert "$p" -colorspace Gray "pgm:$tmp/g.pgm"; p="$tmp/g.pgm" ;; esac
	cjpeg -quality "$q" "$@" -outfile "$out/$cls-${w}x$h-q$q.jpg" "$p"
	n=$((n + 1))
}

for size in 1x1 2x2 7x5 8x8 9x17 16x16 17x9 31x33 33x31 127x129 1x64 64x1 640x427 1000x999 4099x3 3x4099; do
	w=${size%x*} h=${size#*x}
	enc s444 coffee.png "$w" "$h" 90 -sample 1x1
	enc s422 coffee.png "$w" "$h" 90 -sample 2x1
	enc s420 astronaut.png "$w" "$h" 90 -sample 2x2
	enc s440 astronaut.png "$w" "$h" 90 -sample 1x2
	enc s411 coffee.png "$w" "$h" 90 -sample 4x1
	enc gray camera.png "$w" "$h" 90
done
for q in 50 75 85 95 100; do
	enc s420 coffee.png 640 480 "$q" -sample 2x2
	enc s444 astronaut.png 641 479 "$q" -sample 1x1
	enc gray coins.png 383 301 "$q"
done
enc prog420 coffee.png 1001 667 90 -sample 2x2 -progressive
enc prog444 astronaut.png 512 512 90 -sample 1x1 -progressive
enc proggray camera.png 511 513 85 -progressive
enc rst420 coffee.png 1003 665 90 -sample 2x2 -restart 1
enc rstb444 astronaut.png 333 222 90 -sample 1x1 -restart 7B
enc rstgray camera.png 300 201 90 -restart 3B
enc opt420 coffee.png 800 600 90 -sample 2x2 -optimize
enc arith420 coffee.png 640 427 90 -sample 2x2 -arithmetic
enc rgb astronaut.png 320 240 90 -rgb
if [ "${2:-}" = big ]; then
	enc s420 coffee.png 2400 1600 90 -sample 2x2
	enc s444 astronaut.png 2560 1600 95 -sample 1x1
	enc s420 astronaut.png 4000 3000 75 -sample 2x2
fi
cp "$root/samples/rocket.jpg" "$root/samples/hubble_deep_field.jpg" "$out/"
echo "make_jpegs: $((n + 2)) files in $out"
