#!/bin/sh
# devdeps.sh [DIR] - gathers into DIR (default .devdeps, ignored by git) the
# headers and libraries that bench/device-run.sh builds gpufilt against on a
# GPU machine that lacks the Debian -dev packages: run it here, on a Debian
# machine where `make deps` has installed them, then carry DIR with the
# working tree. DIR/include: the headers; DIR/lib: the static libraries the
# build links statically, and the shared ones (with the shared libraries
# these need that such a machine lacks), found there through
# LD_LIBRARY_PATH.
set -eu
dir=${1:-.devdeps}
inc=/usr/include
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
lib=/usr/lib/$arch
rm -rf "$dir"
mkdir -p "$dir/include" "$dir/lib"
for h in stb isa-l isa-l.h webp cairo spng.h turbojpeg.h jansson.h jansson_config.h zlib.h \
	zconf.h libdeflate.h; do
	cp -r "$inc/$h" "$dir/include/"
done
for h in tiff.h tiffio.h tiffconf.h tiffvers.h; do
	cp "$inc/$arch/$h" "$dir/include/" 2>/dev/null || cp "$inc/$h" "$dir/include/"
done
for a in libdeflate.a libturbojpeg.a libjansson.a libz.a; do
	cp "$lib/$a" "$dir/lib/"
done
# shared libraries, with their sonames (cp -P keeps the links)
for so in libspng libisal libwebp libwebpdemux libwebpmux libtiff libLerc libjbig libjpeg \
	libdeflate libsharpyuv; do
	for f in "$lib/$so".so*; do
		[ -e "$f" ] && cp -P "$f" "$dir/lib/"
	done
done
# the link needs the unversioned libjpeg/libdeflate no more than it needs the
# .a's twins: drop what would shadow the static copies
rm -f "$dir/lib/libdeflate.so" "$dir/lib/libjpeg.so"
du -sh "$dir"
