/* meta.c - ICC profiles and EXIF (meta.h, and gf_meta in codec.h): the
 * checks, the Orientation tag, and the carrier's own functions. Calls
 * nothing of src/codec/ above it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"

#define ORIENTATION_TAG 0x0112
#define TIFF_SHORT 3
#define ICC_HEADER 128

static unsigned get16(const unsigned char *p, int le)
{
    return le ? (unsigned)p[0] | (unsigned)p[1] << 8 : (unsigned)p[0] << 8 | p[1];
}

static uint32_t get32(const unsigned char *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The byte order of the TIFF header at t (1 little-endian, 0 big-endian)
 * and IFD0's offset, whose 2-byte entry count lies within n; -1 when t is
 * no TIFF header or IFD0 is not within it. */
static int header(const unsigned char *t, size_t n, uint32_t *ifd)
{
    int le;

    if (n < 8 || !((t[0] == 'I' && t[1] == 'I') || (t[0] == 'M' && t[1] == 'M')))
        return -1;
    le = t[0] == 'I';
    if (get16(t + 2, le) != 42)
        return -1;
    *ifd = get32(t + 4, le);
    if (*ifd < 8 || *ifd > n - 2)
        return -1;
    return le;
}

/* The offset of IFD0's Orientation entry (SHORT, count 1) in t, or 0. */
static size_t orientation_entry(const unsigned char *t, size_t n, int *le)
{
    uint32_t ifd;
    unsigned count;

    if ((*le = header(t, n, &ifd)) < 0)
        return 0;
    count = get16(t + ifd, *le);
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n)
            return 0;
        if (get16(t + e, *le) == ORIENTATION_TAG)
            return get16(t + e + 2, *le) == TIFF_SHORT && get32(t + e + 4, *le) == 1 ? e : 0;
    }
    return 0;
}

int gf_exif_orientation(const unsigned char *t, size_t n)
{
    int le;
    size_t e = orientation_entry(t, n, &le);
    unsigned v = e ? get16(t + e + 8, le) : 0;

    return v >= 1 && v <= 8 ? (int)v : 0;
}

int gf_exif_set_orientation(unsigned char *t, size_t n, int v)
{
    int le;
    size_t e = orientation_entry(t, n, &le);

    if (!e || v < 1 || v > 8)
        return 0;
    t[e + 8] = (unsigned char)(le ? v : 0);
    t[e + 9] = (unsigned char)(le ? 0 : v);
    return 1;
}

/* A leading "Exif\0\0" (JPEG's prefix, which some writers of other
 * formats keep) skipped. */
static const unsigned char *skip_prefix(const unsigned char *t, size_t *n)
{
    if (*n >= 6 && !memcmp(t, "Exif\0\0", 6)) {
        *n -= 6;
        return t + 6;
    }
    return t;
}

int gf_exif_orientation_or_1(const unsigned char *t, size_t n)
{
    int o;

    if (!t)
        return 1;
    t = skip_prefix(t, &n);
    o = gf_exif_orientation(t, n);
    return o ? o : 1;
}

const char *gf_exif_check(const unsigned char *t, size_t n)
{
    uint32_t ifd;

    if (n > GF_MAX_EXIF_BYTES)
        return "larger than 65527 bytes";
    if (header(t, n, &ifd) < 0)
        return "no valid TIFF header";
    return NULL;
}

const char *gf_icc_check(const unsigned char *p, size_t n)
{
    if (n > GF_MAX_ICC_BYTES)
        return "larger than 16 MiB";
    if (n < ICC_HEADER)
        return "shorter than its 128-byte header";
    if (get32(p, 0) != n)
        return "its header's size disagrees with its length";
    if (memcmp(p + 36, "acsp", 4))
        return "no \"acsp\" signature";
    return NULL;
}

void gf_meta_warn(const char *name, const char *what)
{
    fprintf(stderr, "gpufilt: %s: %s\n", name ? name : "input", what);
}

/* A malloc'd copy of p (n bytes) in *dst (freeing the old), or
 * GF_EINTERNAL. */
static int keep(unsigned char **dst, size_t *dlen, const char *name, const unsigned char *p,
                size_t n)
{
    unsigned char *c = malloc(n ? n : 1);

    if (!c)
        return gf_err(GF_EINTERNAL, name, "out of memory reading metadata");
    memcpy(c, p, n);
    free(*dst);
    *dst = c;
    *dlen = n;
    return 0;
}

int gf_meta_keep_icc(gf_meta *m, const char *name, const unsigned char *p, size_t n)
{
    const char *why = gf_icc_check(p, n);
    char msg[160];

    if (why) {
        snprintf(msg, sizeof msg, "ICC profile dropped: %s", why);
        gf_meta_warn(name, msg);
        return 0;
    }
    return keep(&m->icc, &m->icc_len, name, p, n);
}

int gf_meta_keep_exif(gf_meta *m, const char *name, const unsigned char *p, size_t n)
{
    const char *why;
    char msg[160];

    p = skip_prefix(p, &n);
    if ((why = gf_exif_check(p, n))) {
        snprintf(msg, sizeof msg, "EXIF dropped: %s", why);
        gf_meta_warn(name, msg);
        return 0;
    }
    return keep(&m->exif, &m->exif_len, name, p, n);
}

void gf_meta_free(gf_meta *m)
{
    if (!m)
        return;
    free(m->icc);
    free(m->exif);
    memset(m, 0, sizeof *m);
}

void gf_meta_prepare(gf_meta *m, int channels, int upright)
{
    if (!m)
        return;
    if (m->icc) {
        const unsigned char *space = m->icc_len >= ICC_HEADER ? m->icc + 16 : NULL;
        const int fits = space && (channels <= 2 ? !memcmp(space, "GRAY", 4)
                                                 : !memcmp(space, "RGB ", 4));
        if (!fits) {
            free(m->icc);
            m->icc = NULL;
            m->icc_len = 0;
        }
    }
    if (upright && m->exif)
        gf_exif_set_orientation(m->exif, m->exif_len, 1);
}
