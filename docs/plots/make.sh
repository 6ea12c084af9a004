#!/bin/sh
# make.sh - the README's plots: gpufilt's histogram and profile plots of two
# samples, beside gnuplot's rendering of the same CSV (pngcairo, same size),
# for comparison; a colour histogram; the moon's histogram after --equalize. Run from the repository root after `make`; needs gnuplot.
set -eu
d=docs/plots
./gpufilt samples/moon.png --hist $d/hist-moon.csv --hist $d/hist-moon.png -q
./gpufilt samples/text.png --rowsum $d/rowsum-text.csv --rowsum $d/rowsum-text.png -q
./gpufilt samples/astronaut.png --hist $d/hist-astronaut-rgb.png -q
./gpufilt samples/moon.png --equalize --hist $d/hist-moon-equalized.png -q
gnuplot <<GP
set terminal pngcairo size 800,450 font "DejaVu Sans,10"
set datafile separator ","
set key off
set output "$d/hist-moon-gnuplot.png"
set title "moon.png histogram (gnuplot)"
set xlabel "value"; set ylabel "pixels"; set xrange [0:255]
set style fill solid
plot "$d/hist-moon.csv" using 1:2 every ::1 with boxes lc rgb "#333333"
set output "$d/rowsum-text-gnuplot.png"
set title "text.png row sums (gnuplot)"
set xlabel "row"; set ylabel "sum"; set autoscale x; set yrange [0:*]
plot "$d/rowsum-text.csv" using 1:2 every ::1 with lines lc rgb "#1f77b4"
GP
rm -f $d/*.csv
