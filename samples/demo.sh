#!/bin/sh
# demo.sh - the main job on a sample photo: a 5x5 box mean of the astronaut
# photograph, with the timing table, then both kernel variants compared
# against the CPU reference. Outputs go to demo-out/.
set -eu
cd "$(dirname "$0")/.."
mkdir -p demo-out
echo "\$ gpufilt samples/astronaut.png -o demo-out/astronaut-mean5.png --mean 5"
./gpufilt samples/astronaut.png -o demo-out/astronaut-mean5.png --mean 5
echo
echo "\$ gpufilt samples/coins.pgm -o demo-out/coins-mean3.png --mean 3 --compare"
./gpufilt samples/coins.pgm -o demo-out/coins-mean3.png --mean 3 --compare
echo
echo "wrote demo-out/astronaut-mean5.png and demo-out/coins-mean3.png"
