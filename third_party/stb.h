/* stb.h - what gpufilt uses from its configured stb build (stb.c): the
 * stb_image API (declarations from <stb/stb_image.h>) and two wrappers of
 * stb_image_write. */
#ifndef GF_STB_H
#define GF_STB_H

#include <stb/stb_image.h>

/* Encodes a width x height 8-bit gray image (host memory, stride bytes per
 * row) as PNG into a malloc'd buffer of *out_len bytes; NULL when out of
 * memory. Thread-safe once gf_stb_png_config has run. */
unsigned char *gf_stb_png_encode(const unsigned char *pixels, int stride, int width, int height,
                                 int *out_len);

/* The same for an RGB image (3 bytes a pixel). */
unsigned char *gf_stb_png_encode_rgb(const unsigned char *pixels, int stride, int width,
                                     int height, int *out_len);

/* Sets the deflate level (libdeflate 0-12) and the PNG row filter (0-4, or -1
 * for stb's per-row choice) of every later encode. Not thread-safe. */
void gf_stb_png_config(int level, int filter);

#endif
