#!/bin/sh
# demo.sh - what gpufilt does, on the samples, in a few seconds with or
# without a GPU: a batch of JPEG thumbnails (--resize), a Gaussian blur and
# an unsharp mask, an edge map, a TIFF and a WebP that keep the photo's EXIF
# and colour profile (read back with exiftool, or tiffinfo, where present),
# a histogram with its statistics, a page's row profile, and a 5x5 box mean
# with its timing table
# (and every kernel variant checked against the CPU reference where a GPU
# is). Each output is named as it is written; they go to $DEMO_OUT
# (demo-out/), and the last lines list them. Run from anywhere after `make`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-demo-out}
g=$root/gpufilt
s=$root/samples
mkdir -p "$out"
say() { printf '\n$ %s\n' "$*"; }
wrote() { for f in "$@"; do printf '  -> %s\n' "$f"; done; }

say gpufilt 'samples/*.png' 'samples/*.jpg' --resize 160x160 --quality 85 -o "'$out/thumbs/{stem}.jpg'"
"$g" "$s"/*.png "$s"/*.jpg --resize 160x160 --quality 85 -o "$out/thumbs/{stem}.jpg" -q
echo "(each fits inside 160x160, its aspect kept, as convert -resize 160x160 gives it)"
wrote "$out"/thumbs/*.jpg

say gpufilt samples/astronaut.png --gaussian 3 -o "$out/astronaut-gaussian3.png"
"$g" "$s/astronaut.png" --gaussian 3 -o "$out/astronaut-gaussian3.png" -q
wrote "$out/astronaut-gaussian3.png"

say gpufilt samples/moon.png --unsharp 2,1.5 -o "$out/moon-unsharp.png"
"$g" "$s/moon.png" --unsharp 2,1.5 -o "$out/moon-unsharp.png" -q
echo "(the craters' edges sharpened: the image plus 1.5 x (image - its Gaussian blur))"
wrote "$out/moon-unsharp.png"

say gpufilt samples/coins.png --gaussian 1 --sobel --threshold otsu -o "$out/coins-edges.png"
"$g" "$s/coins.png" --gaussian 1 --sobel --threshold otsu -o "$out/coins-edges.png" -q
echo "(an edge map: the Sobel gradient of the smoothed image, black and white at Otsu's threshold)"
wrote "$out/coins-edges.png"

# A photo's metadata, kept: the EXIF of the Hubble picture and the Adobe RGB
# profile of the rocket, into TIFF and WebP.
say gpufilt samples/hubble_deep_field.jpg --resize 50% -o "$out/hubble.tif"
"$g" "$s/hubble_deep_field.jpg" --resize 50% -o "$out/hubble.tif" -q
wrote "$out/hubble.tif"
say gpufilt samples/rocket.jpg --resize 50% --lossless -o "$out/rocket.webp"
"$g" "$s/rocket.jpg" --resize 50% --lossless -o "$out/rocket.webp" -q
wrote "$out/rocket.webp"
if command -v exiftool >/dev/null 2>&1; then
	say exiftool -Software -ModifyDate -Orientation -ExifVersion "$out/hubble.tif"
	exiftool -Software -ModifyDate -Orientation -ExifVersion "$out/hubble.tif"
	say exiftool -ProfileDescription -ColorSpaceData "$out/rocket.webp"
	exiftool -ProfileDescription -ColorSpaceData "$out/rocket.webp"
elif command -v tiffinfo >/dev/null 2>&1; then
	say tiffinfo "$out/hubble.tif"
	tiffinfo "$out/hubble.tif" 2>/dev/null | grep -E "Software|DateTime|Orientation|EXIF|ICC"
	echo "(exiftool, in Debian's libimage-exiftool-perl, reads the WebP's profile too)"
else
	echo "(exiftool, in Debian's libimage-exiftool-perl, reads their EXIF and profile back)"
fi
echo "(--strip leaves both out)"

say gpufilt samples/moon.png --stats --hist "$out/moon-hist.png" -q
"$g" "$s/moon.png" --stats --hist "$out/moon-hist.png" -q
wrote "$out/moon-hist.png"

say gpufilt samples/text.png --rowsum "$out/text-rows.png" -q
"$g" "$s/text.png" --rowsum "$out/text-rows.png" -q
echo "(the row sums of a page: the dips are the gaps between its lines)"
wrote "$out/text-rows.png"

say gpufilt samples/astronaut.png -o "$out/astronaut-mean5.png" --mean 5
"$g" "$s/astronaut.png" -o "$out/astronaut-mean5.png" --mean 5
wrote "$out/astronaut-mean5.png"
if "$g" "$s/text.png" --colsum - --backend cuda -q >/dev/null 2>&1; then
	say gpufilt samples/coins.pgm --mean 3 --compare
	"$g" "$s/coins.pgm" --mean 3 --compare
fi

printf '\nwrote:\n'
find "$out" -type f | sort | sed 's/^/  /'
