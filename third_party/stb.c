/* stb.c - gpufilt's configured build of stb_image and stb_image_write from
 * the system's libstb-dev headers (see README.md here). */
#include <libdeflate.h>
#include <stdlib.h>

/* stb_image: only the decoders gpufilt reads. Leaving out GIF, TGA, HDR, PSD,
 * PIC and PNM also leaves out the code of stb's known unfixed bugs; binary
 * PNM is read by src/image.c. */
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 65535
#include "stb.h"
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

/* stb_image_write: PNG's deflate is libdeflate's (zlib format), at the level
 * stb passes, stbi_write_png_compression_level, which gf_set_png_level sets.
 * One compressor per thread and level is kept for the thread's life. */
static unsigned char *gf_zlib_compress(unsigned char *data, int len, int *out_len, int level)
{
    static _Thread_local struct libdeflate_compressor *c;
    static _Thread_local int c_level = -1;
    unsigned char *out;
    size_t bound, n;

    if (level < 0)
        level = 0;
    if (level > 12)
        level = 12;
    if (!c || c_level != level) {
        if (c)
            libdeflate_free_compressor(c);
        c = libdeflate_alloc_compressor(level);
        c_level = c ? level : -1;
        if (!c)
            return NULL;
    }
    bound = libdeflate_zlib_compress_bound(c, (size_t)len);
    out = malloc(bound);
    if (!out)
        return NULL;
    n = libdeflate_zlib_compress(c, data, (size_t)len, out, bound);
    if (n == 0 || n > (size_t)0x7fffffff) {
        free(out);
        return NULL;
    }
    *out_len = (int)n;
    return out;
}

/* PNG's chunk CRCs: libdeflate's CRC-32 (same polynomial as PNG's, several
 * times faster than stb's byte-at-a-time table). */
static unsigned gf_crc32(unsigned char *buf, int len)
{
    return (unsigned)libdeflate_crc32(0, buf, (size_t)len);
}

#define STBIW_ZLIB_COMPRESS gf_zlib_compress
#define STBIW_CRC32 gf_crc32
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

unsigned char *gf_stb_png_encode(const unsigned char *pixels, int stride, int width, int height,
                                 int *out_len)
{
    return stbi_write_png_to_mem(pixels, stride, width, height, 1, out_len);
}

unsigned char *gf_stb_png_encode_rgb(const unsigned char *pixels, int stride, int width,
                                     int height, int *out_len)
{
    return stbi_write_png_to_mem(pixels, stride, width, height, 3, out_len);
}

void gf_stb_png_config(int level, int filter)
{
    stbi_write_png_compression_level = level;
    stbi_write_force_png_filter = filter;
}
