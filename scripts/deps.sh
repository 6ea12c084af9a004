#!/bin/sh
# deps.sh check|install - the Debian packages gpufilt builds and tests with.
#   check    exit 0 when every header and tool is present, else list what lacks
#   install  apt-get install what lacks (as root, or with sudo); otherwise
#            print the exact command and fail
set -eu
pkgs=""
need() { # need PACKAGE TEST...
	pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then pkgs="$pkgs $pkg"; fi
}
need libstb-dev test -f /usr/include/stb/stb_image.h
need libdeflate-dev test -f /usr/include/libdeflate.h
need libturbojpeg0-dev test -f /usr/include/turbojpeg.h
need libspng-dev test -f /usr/include/spng.h
need libjpeg-turbo-progs command -v djpeg
need libjansson-dev test -f /usr/include/jansson.h
need libcairo2-dev test -f /usr/include/cairo/cairo.h
need fonts-dejavu-core test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
need zlib1g-dev test -f /usr/include/zlib.h
need libcmocka-dev test -f /usr/include/cmocka.h
need imagemagick command -v convert
need libxml2-utils command -v xmllint
need time test -x /usr/bin/time
# make fuzz: clang with libFuzzer's runtime
need clang command -v clang
need libclang-rt-dev sh -c 'ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a'
need bats command -v bats
need python3 command -v python3

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
	;;
*)
	echo "usage: deps.sh check|install" >&2
	exit 64
	;;
esac
