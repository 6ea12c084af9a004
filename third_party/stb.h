/* stb.h - what gpufilt uses from its configured stb build (stb.c): the
 * stb_image API (declarations from <stb/stb_image.h>) and two wrappers of
 * stb_image_write. */
#ifndef GF_STB_H
#define GF_STB_H

#include <stb/stb_image.h>

/* Encodes a width x height 8-bit gray image (host memory, stride bytes per
 * row) as PNG, rows with the Up filter and deflated by libdeflate at `level`
 * (0-12), into a malloc'd buffer of *out_len bytes; NULL when out of memory.
 * Thread-safe. */
unsigned char *gf_stb_png_encode(const unsigned char *pixels, int stride, int width, int height,
                                 int level, int *out_len);

#endif
