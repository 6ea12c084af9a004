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

size_t gf_tiff_type_size(unsigned type)
{
    static const unsigned char size[19] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8};
    return type < sizeof size ? size[type] : 0;
}

static uint64_t get64(const unsigned char *p, int le)
{
    const uint64_t a = get32(p, le), b = get32(p + 4, le);
    return le ? a | b << 32 : a << 32 | b;
}

int gf_ifd_read(const unsigned char *t, size_t n, uint64_t off, int le, int big,
                gf_ifd_entry *e, int max, const char **why)
{
    const size_t head = big ? 8 : 2, size = big ? 20 : 12, inline_max = big ? 8 : 4;
    uint64_t count;

    if (off < 8 || off > n || n - off < head) {
        *why = "a directory lies outside it";
        return -1;
    }
    count = big ? get64(t + off, le) : get16(t + off, le);
    if (count > (uint64_t)max) {
        *why = "a directory has too many entries";
        return -1;
    }
    if ((n - off - head) / size < count) {
        *why = "a directory runs past its end";
        return -1;
    }
    for (uint64_t i = 0; i < count; i++) {
        const unsigned char *p = t + off + head + i * size;
        const size_t ts = gf_tiff_type_size(get16(p + 2, le));
        gf_ifd_entry *x = &e[i];
        x->tag = (uint16_t)get16(p, le);
        x->type = (uint16_t)get16(p + 2, le);
        x->count = big ? get64(p + 4, le) : get32(p + 4, le);
        x->value = NULL;
        if (!ts || x->count > n / ts)
            continue; /* unknown, or more than t holds */
        if (x->count * ts <= inline_max) {
            x->value = p + (big ? 12 : 8);
        } else {
            const uint64_t at = big ? get64(p + 12, le) : get32(p + 8, le);
            if (at <= n && x->count * ts <= n - at)
                x->value = t + at;
        }
    }
    return (int)count;
}

int64_t gf_ifd_int(const gf_ifd_entry *e, uint64_t i, int le)
{
    const unsigned char *p = e->value + i * gf_tiff_type_size(e->type);

    switch (e->type) {
    case GF_TIFF_SBYTE: return (int8_t)p[0];
    case GF_TIFF_SHORT: return get16(p, le);
    case GF_TIFF_SSHORT: return (int16_t)get16(p, le);
    case GF_TIFF_LONG:
    case GF_TIFF_IFD:
    case GF_TIFF_RATIONAL: return get32(p, le);
    case GF_TIFF_SLONG:
    case GF_TIFF_SRATIONAL: return (int32_t)get32(p, le);
    case GF_TIFF_LONG8:
    case GF_TIFF_SLONG8:
    case GF_TIFF_IFD8: return (int64_t)get64(p, le);
    case GF_TIFF_FLOAT:
    case GF_TIFF_DOUBLE: return (int64_t)gf_ifd_real(e, i, le);
    default: return p[0];
    }
}

double gf_ifd_real(const gf_ifd_entry *e, uint64_t i, int le)
{
    const unsigned char *p = e->value + i * gf_tiff_type_size(e->type);

    switch (e->type) {
    case GF_TIFF_RATIONAL:
    case GF_TIFF_SRATIONAL: {
        const double num = e->type == GF_TIFF_RATIONAL ? (double)get32(p, le)
                                                       : (double)(int32_t)get32(p, le);
        const double den = e->type == GF_TIFF_RATIONAL ? (double)get32(p + 4, le)
                                                       : (double)(int32_t)get32(p + 4, le);
        return den != 0 ? num / den : 0.0;
    }
    case GF_TIFF_FLOAT: {
        const uint32_t b = get32(p, le);
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    case GF_TIFF_DOUBLE: {
        const uint64_t b = get64(p, le);
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    default: return (double)gf_ifd_int(e, i, le);
    }
}

/* The offset a pointer entry (EXIF, GPS) gives: 0 with *off, or -1 when it
 * is not one LONG or IFD. */
static int pointer(const gf_ifd_entry *e, int le, uint64_t *off)
{
    if ((e->type != GF_TIFF_LONG && e->type != GF_TIFF_IFD) || e->count != 1 || !e->value)
        return -1;
    *off = get32(e->value, le);
    return 0;
}

/* Keeps the entries of dir[0, k) but those of tag `drop` (-1: none; and, where
 * ptr is not NULL, the offsets of tags GF_TAG_EXIF_IFD and GF_TAG_GPS_IFD
 * in ptr[1], ptr[2], which are taken out too); NULL, or why the directory
 * is malformed. */
static const char *keep_entries(gf_ifd_entry *dir, int *k, long drop, int le,
                                uint64_t ptr[GF_EXIF_DIRS])
{
    int out = 0;

    for (int i = 0; i < *k; i++) {
        const gf_ifd_entry *x = &dir[i];
        if ((long)x->tag == drop)
            continue;
        if (ptr && (x->tag == GF_TAG_EXIF_IFD || x->tag == GF_TAG_GPS_IFD)) {
            if (pointer(x, le, &ptr[x->tag == GF_TAG_EXIF_IFD ? GF_EXIF_EXIF : GF_EXIF_GPS]))
                return "an IFD pointer is not one LONG";
            continue;
        }
        if (!x->value && gf_tiff_type_size(x->type))
            return "a value lies outside it";
        dir[out++] = *x;
    }
    *k = out;
    return NULL;
}

const char *gf_exif_parse(const unsigned char *t, size_t n, gf_exif_dirs *d)
{
    uint64_t ptr[GF_EXIF_DIRS] = {0};
    uint32_t ifd0;
    const char *why = NULL;

    memset(d->n, 0, sizeof d->n);
    if ((d->le = header(t, n, &ifd0)) < 0)
        return "no valid TIFF header";
    ptr[GF_EXIF_IFD0] = ifd0;
    for (int k = 0; k < GF_EXIF_DIRS; k++) {
        if (!ptr[k])
            continue;
        if ((d->n[k] = gf_ifd_read(t, n, ptr[k], d->le, 0, d->e[k], GF_EXIF_MAX_ENTRIES,
                                   &why)) < 0) {
            d->n[k] = 0;
            return why;
        }
        if ((why = keep_entries(d->e[k], &d->n[k], k == GF_EXIF_EXIF ? GF_TAG_INTEROP_IFD : -1,
                                d->le, k == GF_EXIF_IFD0 ? ptr : NULL)))
            return why;
    }
    return NULL;
}

int gf_exif_ifd0_tag(unsigned tag)
{
    switch (tag) {
    case 270: case 271: case 272: case 274: case 282: case 283: case 296: case 305: case 306:
    case 315: case 316: case 318: case 319: case 33432: return 1;
    default:
        return (tag >= 0x829a && tag <= 0x88ff && tag != GF_TAG_GPS_IFD &&
                tag != GF_TAG_EXIF_IFD && tag != 0x8773 /* ICC */) ||
               (tag >= 0x9000 && tag <= 0x9fff && tag != 0x935c) ||
               (tag >= 0xa000 && tag <= 0xa4ff && tag != GF_TAG_INTEROP_IFD);
    }
}

/* 1 when IFD0 tag `tag` alone makes a TIFF's EXIF worth keeping: what a
 * camera or a person wrote, not what writers add to every file (Software,
 * the resolution, an ImageDescription such as tifffile's shape). */
static int says_something(unsigned tag)
{
    return tag == 271 || tag == 272 || tag == 274 || tag == 306 || tag == 315 || tag == 33432 ||
           (gf_exif_ifd0_tag(tag) && tag > 0x8000);
}

const char *gf_exif_from_tiff(const unsigned char *t, size_t n, int le, int big,
                              const gf_ifd_entry *ifd0, int k, gf_exif_dirs *d)
{
    uint64_t ptr[GF_EXIF_DIRS] = {0};
    int any = 0;
    const char *why = NULL;

    memset(d->n, 0, sizeof d->n);
    d->le = le;
    for (int i = 0; i < k; i++) {
        const gf_ifd_entry *x = &ifd0[i];
        if (x->tag == GF_TAG_EXIF_IFD || x->tag == GF_TAG_GPS_IFD) {
            const int dir = x->tag == GF_TAG_EXIF_IFD ? GF_EXIF_EXIF : GF_EXIF_GPS;
            const int wide = x->type == GF_TIFF_LONG8 || x->type == GF_TIFF_IFD8;
            if (x->count != 1 || !x->value ||
                !(x->type == GF_TIFF_LONG || x->type == GF_TIFF_IFD || (big && wide)))
                return "an IFD pointer is not one LONG";
            ptr[dir] = wide ? get64(x->value, le) : get32(x->value, le);
            any = 1;
        } else if (gf_exif_ifd0_tag(x->tag) && x->value && d->n[GF_EXIF_IFD0] < GF_EXIF_MAX_ENTRIES) {
            d->e[GF_EXIF_IFD0][d->n[GF_EXIF_IFD0]++] = *x;
            any |= says_something(x->tag);
        }
    }
    for (int dir = GF_EXIF_EXIF; any && dir < GF_EXIF_DIRS; dir++) {
        if (!ptr[dir])
            continue;
        if ((d->n[dir] = gf_ifd_read(t, n, ptr[dir], le, big, d->e[dir], GF_EXIF_MAX_ENTRIES,
                                     &why)) < 0) {
            memset(d->n, 0, sizeof d->n);
            return why;
        }
        if ((why = keep_entries(d->e[dir], &d->n[dir],
                                dir == GF_EXIF_EXIF ? GF_TAG_INTEROP_IFD : -1, le, NULL))) {
            memset(d->n, 0, sizeof d->n);
            return why;
        }
    }
    if (!any)
        memset(d->n, 0, sizeof d->n);
    return NULL;
}

/* The entries of one directory that gf_exif_build writes, sorted by tag
 * (the first of a repeated tag kept), in o[] (GF_EXIF_MAX_ENTRIES); their
 * number. */
static int sorted(const gf_ifd_entry *e, int n, const gf_ifd_entry **o)
{
    int k = 0;

    for (int i = 0; i < n; i++) {
        int j;
        if (!e[i].value || !gf_tiff_type_size(e[i].type) || e[i].type > GF_TIFF_IFD ||
            e[i].count > UINT32_MAX)
            continue; /* BigTIFF's 8-byte types are not classic TIFF's */
        for (j = k; j > 0 && o[j - 1]->tag > e[i].tag; j--)
            ;
        if (j > 0 && o[j - 1]->tag == e[i].tag)
            continue;
        memmove(o + j + 1, o + j, (size_t)(k - j) * sizeof *o);
        o[j] = &e[i];
        k++;
    }
    return k;
}

static void put16(unsigned char *p, unsigned v, int le)
{
    p[le ? 0 : 1] = (unsigned char)v;
    p[le ? 1 : 0] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v, int le)
{
    for (int i = 0; i < 4; i++)
        p[le ? i : 3 - i] = (unsigned char)(v >> 8 * i);
}

/* The bytes one directory of k entries (and `extra` pointer entries) takes
 * with its values. */
static size_t dir_bytes(const gf_ifd_entry *const *o, int k, int extra)
{
    size_t b = 2 + 12 * (size_t)(k + extra) + 4;
    for (int i = 0; i < k; i++) {
        const size_t v = (size_t)o[i]->count * gf_tiff_type_size(o[i]->type);
        if (v > 4)
            b += v + (v & 1);
    }
    return b;
}

unsigned char *gf_exif_build(const gf_exif_dirs *d, size_t *n)
{
    static const uint16_t ptr_tag[GF_EXIF_DIRS] = {0, GF_TAG_EXIF_IFD, GF_TAG_GPS_IFD};
    const gf_ifd_entry **o = malloc(GF_EXIF_DIRS * GF_EXIF_MAX_ENTRIES * sizeof *o);
    const gf_ifd_entry **s[GF_EXIF_DIRS];
    int k[GF_EXIF_DIRS], extra = 0;
    size_t at[GF_EXIF_DIRS], total = 8;
    unsigned char *t;
    const int le = d->le;

    if (!o)
        return NULL;
    for (int i = 0; i < GF_EXIF_DIRS; i++) {
        s[i] = o + i * GF_EXIF_MAX_ENTRIES;
        k[i] = sorted(d->e[i], d->n[i], s[i]);
        extra += i && k[i];
    }
    for (int i = 0; i < GF_EXIF_DIRS; i++) {
        if (i && !k[i])
            continue;
        at[i] = total;
        total += dir_bytes(s[i], k[i], i ? 0 : extra);
    }
    if (!(t = calloc(1, total))) {
        free(o);
        return NULL;
    }
    memcpy(t, le ? "II" : "MM", 2);
    put16(t + 2, 42, le);
    put32(t + 4, 8, le);
    for (int i = 0; i < GF_EXIF_DIRS; i++) {
        int m = 0, entries;
        size_t v;
        if (i && !k[i])
            continue;
        entries = k[i] + (i ? 0 : extra);
        put16(t + at[i], (unsigned)entries, le);
        v = at[i] + 2 + 12 * (size_t)entries + 4;
        for (int j = 0, p = 1; j < k[i] || (!i && p < GF_EXIF_DIRS); m++) {
            unsigned char *e = t + at[i] + 2 + 12 * (size_t)m;
            while (!i && p < GF_EXIF_DIRS && !k[p])
                p++;
            if (!i && p < GF_EXIF_DIRS && (j == k[i] || ptr_tag[p] < s[i][j]->tag)) {
                put16(e, ptr_tag[p], le); /* a pointer, in its tag's place */
                put16(e + 2, GF_TIFF_LONG, le);
                put32(e + 4, 1, le);
                put32(e + 8, (uint32_t)at[p], le);
                p++;
                continue;
            }
            if (j == k[i])
                break;
            const gf_ifd_entry *x = s[i][j++];
            const size_t bytes = (size_t)x->count * gf_tiff_type_size(x->type);
            put16(e, x->tag, le);
            put16(e + 2, x->type, le);
            put32(e + 4, (uint32_t)x->count, le);
            if (bytes <= 4) {
                memcpy(e + 8, x->value, bytes);
            } else {
                put32(e + 8, (uint32_t)v, le);
                memcpy(t + v, x->value, bytes);
                v += bytes + (bytes & 1);
            }
        }
    }
    free(o);
    *n = total;
    return t;
}

const char *gf_exif_check(const unsigned char *t, size_t n)
{
    gf_exif_dirs *d;
    const char *why;

    if (n > GF_MAX_EXIF_BYTES)
        return "larger than 65527 bytes";
    if (!(d = malloc(sizeof *d)))
        return "out of memory";
    why = gf_exif_parse(t, n, d);
    free(d);
    return why;
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

/* 1 when profile p (n bytes) is of the colour space that images of
 * `channels` channels have: GRAY for 1 or 2, RGB for 3 or 4. */
static int space_fits(const unsigned char *p, size_t n, int channels)
{
    return n >= ICC_HEADER &&
           !memcmp(p + 16, channels <= 2 ? "GRAY" : "RGB ", 4);
}

static void drop_icc(gf_meta *m)
{
    free(m->icc);
    m->icc = NULL;
    m->icc_len = 0;
}

int gf_meta_gray(const gf_meta *m)
{
    return m && m->icc && space_fits(m->icc, m->icc_len, 1);
}

void gf_meta_fit(gf_meta *m, const char *name, int channels)
{
    char msg[120], space[5];

    if (!m || !m->icc || space_fits(m->icc, m->icc_len, channels))
        return;
    for (int i = 0; i < 4; i++) /* the space's 4 characters, printable */
        space[i] = m->icc_len >= ICC_HEADER && m->icc[16 + i] >= 32 && m->icc[16 + i] < 127
                       ? (char)m->icc[16 + i]
                       : '?';
    space[4] = 0;
    snprintf(msg, sizeof msg, "ICC profile dropped: a '%s' profile on %s image", space,
             channels <= 2 ? "a gray" : "an RGB");
    gf_meta_warn(name, msg);
    drop_icc(m);
}

void gf_meta_prepare(gf_meta *m, int channels, int upright)
{
    if (!m)
        return;
    if (m->icc && !space_fits(m->icc, m->icc_len, channels))
        drop_icc(m);
    if (upright && m->exif)
        gf_exif_set_orientation(m->exif, m->exif_len, 1);
}
