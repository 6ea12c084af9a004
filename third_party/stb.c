/* stb.c - gpufilt's configured build of stb_image and stb_image_write from
 * the system's libstb-dev headers (see README.md here). */
#include <libdeflate.h>
#include <setjmp.h>
#include <stdlib.h>

/* stb_image: only BMP, which gpufilt reads through it after checking the
 * headers itself (src/codec/bmp.c); PNG is libspng's, JPEG libjpeg-turbo's,
 * PNM gpufilt's own. Leaving the rest out also leaves out the code of stb's
 * known unfixed bugs. */
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 65535
/* An stb assertion fails the one file being decoded, never the process: it
 * jumps back to gf_stb_load, which reports the file as undecodable. */
static _Thread_local jmp_buf *assert_jump;

static void stb_assert_failed(void)
{
    if (assert_jump)
        longjmp(*assert_jump, 1);
    abort(); /* outside gf_stb_load: a bug in gpufilt itself */
}
#define STBI_ASSERT(x) ((x) ? (void)0 : stb_assert_failed())

#include "stb.h"
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

unsigned char *gf_stb_load(const unsigned char *buf, int len, int *w, int *h, int *comp)
{
    jmp_buf here;
    unsigned char *volatile px = NULL;

    if (setjmp(here) == 0) {
        assert_jump = &here;
        px = stbi_load_from_memory(buf, len, w, h, comp, 0);
    } else {
        px = NULL; /* what stb had allocated is lost: a failed assertion is rare */
        stbi__g_failure_reason = "internal check failed";
    }
    assert_jump = NULL;
    return px;
}

const char *gf_stb_failure(void)
{
    return stbi_failure_reason();
}

/* stb_image_write: PNG's deflate is libdeflate's (zlib format), at the level
 * gf_stb_png_encode was given (per call, so threads may differ). */
static _Thread_local int png_level = 1;

static unsigned char *gf_zlib_compress(unsigned char *data, int len, int *out_len, int quality)
{
    struct libdeflate_compressor *c;
    int level = png_level;
    unsigned char *out;
    size_t bound, n;

    (void)quality;

    if (level < 0)
        level = 0;
    if (level > 12)
        level = 12;
    c = libdeflate_alloc_compressor(level);
    if (!c)
        return NULL;
    bound = libdeflate_zlib_compress_bound(c, (size_t)len);
    out = malloc(bound);
    n = out ? libdeflate_zlib_compress(c, data, (size_t)len, out, bound) : 0;
    libdeflate_free_compressor(c);
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

/* PNG row filter: stb's per-row choice tries all five filters on every row,
 * and Paeth is a serial loop; the fixed Up filter (2) vectorises, and on the
 * samples it is within 3% of Paeth's size at 60% of its time
 * (docs/benchmarks.md, "PNG encoding"). Set once, before main. */
#define PNG_FILTER 2

__attribute__((constructor)) static void png_filter_init(void)
{
    stbi_write_force_png_filter = PNG_FILTER;
}

unsigned char *gf_stb_png_encode(const unsigned char *pixels, int stride, int width, int height,
                                 int level, int *out_len)
{
    png_level = level;
    return stbi_write_png_to_mem(pixels, stride, width, height, 1, out_len);
}
