#!/bin/sh
# deps.sh check|install - the Debian packages gpufilt builds and tests with.
#   check    exit 0 when every package is installed, else list what lacks
#   install  apt-get install what lacks (as root, or with sudo); otherwise
#            print the exact command and fail
# Each package is checked by what it is, dpkg's record that it is installed,
# never by a file or a command of that name: a `convert` on PATH may be a
# stand-in, and a header may come from elsewhere. The tests call the
# packages' own tools (tests/cli/helper.bash puts /usr/bin first on PATH).
set -eu
# the build: codecs, JSON, plots, zlib
build="libstb-dev libdeflate-dev libturbojpeg0-dev libspng-dev libjansson-dev libcairo2-dev
fonts-dejavu-core zlib1g-dev libisal-dev libtiff-dev libwebp-dev"
# the tests and their independent oracles: cmocka, bats, djpeg/cjpeg, ImageMagick, netpbm,
# numpy, OpenCV, Pillow and tifffile (Debian's python3), tiffinfo and tiffcp, dwebp and cwebp
# (webp), xmllint, GNU time, exiftool (metadata); the scale-out tests: Slurm with munge (a single-node cluster on
# localhost) and GNU parallel; make fuzz: clang and libFuzzer's runtime; valgrind: the PNG
# encoder reads no uninitialised memory
tests="libcmocka-dev bats libjpeg-turbo-progs imagemagick netpbm python3 python3-numpy
python3-opencv python3-pil python3-tifffile libtiff-tools libxml2-utils time slurm-wlm munge
parallel clang libclang-rt-dev valgrind webp libimage-exiftool-perl"

installed() { # installed PACKAGE: dpkg has it fully installed
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

pkgs=""
for p in $build $tests; do
	installed "$p" || pkgs="$pkgs $p"
done

case "${1:-check}" in
check)
	if [ -n "$pkgs" ]; then
		echo "gpufilt: missing Debian packages:$pkgs (run: make deps)" >&2
		exit 1
	fi
	;;
install)
	[ -z "$pkgs" ] && exit 0
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo apt-get update -qq
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs
	else
		echo "gpufilt: missing Debian packages; run as root:" >&2
		echo "  apt-get update && apt-get install -y$pkgs" >&2
		exit 1
	fi
	# what apt-get said it installed must now be there
	for p in $pkgs; do
		installed "$p" || { echo "gpufilt: $p did not install" >&2; exit 1; }
	done
	;;
*)
	echo "usage: deps.sh check|install" >&2
	exit 64
	;;
esac
