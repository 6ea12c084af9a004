/* stb.c - gpufilt's configured build of stb_image from the system's
 * libstb-dev headers (see README.md here). */
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
