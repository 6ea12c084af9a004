#!/bin/sh
# demo.sh - what gpufilt does, on the samples: a 5x5 box mean of a colour
# photo with its timing table (and every kernel variant checked against the
# CPU reference where a GPU is), a histogram per channel, a gray image's
# histogram with its statistics and plots, the row profile of a text page,
# and a small batch. Outputs go to $DEMO_OUT
# (demo-out/); the last lines list them. Run from anywhere after `make`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${DEMO_OUT:-demo-out}
g=$root/gpufilt
s=$root/samples
mkdir -p "$out"
say() { printf '\n$ %s\n' "$*"; }

say gpufilt samples/astronaut.png -o "$out/astronaut-mean5.png" --mean 5
"$g" "$s/astronaut.png" -o "$out/astronaut-mean5.png" --mean 5
if "$g" "$s/text.png" --colsum - --backend cuda -q >/dev/null 2>&1; then
	say gpufilt samples/coins.pgm --mean 3 --compare
	"$g" "$s/coins.pgm" --mean 3 --compare
fi

say gpufilt samples/coffee.png --hist "$out/coffee-hist.png" -q
"$g" "$s/coffee.png" --hist "$out/coffee-hist.png" -q
echo "(a curve per channel: red, green, blue)"

say gpufilt samples/moon.png --stats --hist "$out/moon-hist.csv" --hist "$out/moon-hist.png" \
	--hist-log --hist "$out/moon-hist.svg" -q
"$g" "$s/moon.png" --stats --hist "$out/moon-hist.csv" --hist "$out/moon-hist.png" \
	--hist-log --hist "$out/moon-hist.svg" -q

say gpufilt samples/text.png --rowsum "$out/text-rows.png" --rowsum "$out/text-rows.csv" -q
"$g" "$s/text.png" --rowsum "$out/text-rows.png" --rowsum "$out/text-rows.csv" -q
echo "(the dips are the gaps between lines of text)"

say gpufilt samples/*.png --mean 3 -o "$out/batch/{stem}.png"
"$g" "$s"/*.png --mean 3 -o "$out/batch/{stem}.png"

printf '\nwrote:\n'
find "$out" -type f | sort | sed 's/^/  /'
