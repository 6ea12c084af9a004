/* test_meta.c - ICC profiles and EXIF (src/codec/meta.c and the formats):
 * the EXIF Orientation read and rewritten in both byte orders, on fresh
 * random IFDs; malformed blobs (every truncation, offsets past the end,
 * huge counts, wrong types, random bytes) read as "none" and are left
 * alone; the ICC checks (size field, "acsp", 16 MiB); and a random ICC
 * profile and EXIF through gf_encode and gf_decode (GF_DECODE_META) of each
 * format that holds them, byte for byte, with the same bytes as before
 * when there is none; files that hold what the checks refuse decode with
 * that dropped. */
#include "common.h"

#include <math.h>

#include "../../src/codec/codec.h"
#include "../../src/codec/meta.h"

static const gf_limits lim = {GF_DEFAULT_MAX_PIXELS, GF_DEFAULT_MAX_FILE_BYTES,
                              GF_DEFAULT_MAX_IMAGE_BYTES, 0, 0, 0};

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

/* A random EXIF: a TIFF header of byte order le, IFD0 at 8 of `entries`
 * random entries (tags below 0x0112 before it, above after it; one value
 * of a random type each, within the blob) of which
 * entry k is Orientation = o (k < 0: none), then random bytes. *entry_end
 * is where Orientation's entry ends. Returns the malloc'd blob of *n bytes. */
static unsigned char *make_exif(int le, int entries, int k, int o, size_t *n, size_t *entry_end)
{
    const size_t tail = test_rand() % 64;
    unsigned char *t;

    *n = 8 + 2 + (size_t)entries * 12 + 4 + tail;
    t = malloc(*n);
    assert_non_null(t);
    memcpy(t, le ? "II" : "MM", 2);
    put16(t + 2, 42, le);
    put32(t + 4, 8, le);
    put16(t + 8, (unsigned)entries, le);
    for (int i = 0; i < entries; i++) {
        unsigned char *e = t + 10 + i * 12;
        unsigned tag = i == k ? 0x0112
                       : (k >= 0 && i > k) || (k < 0 && test_rand() % 2)
                           ? 0x0113 + test_rand() % 0x7000
                           : 0x0100 + test_rand() % 0x12;
        const unsigned type = i == k ? 3 : 1 + test_rand() % 12;
        put16(e, tag, le);
        put16(e + 2, type, le);
        put32(e + 4, 1, le);
        /* one value: in the entry, or (8 bytes) at an offset within the blob */
        put32(e + 8, gf_tiff_type_size(type) <= 4 ? test_rand() : 8 + test_rand() % (*n - 15),
              le);
        if (i == k) {
            put32(e + 8, 0, le);
            put16(e + 8, (unsigned)o, le);
        }
    }
    put32(t + 10 + entries * 12, 0, le);
    for (size_t i = 0; i < tail; i++)
        t[*n - tail + i] = (unsigned char)test_rand();
    *entry_end = k >= 0 ? 10 + (size_t)(k + 1) * 12 : 0;
    return t;
}

/* A malloc'd copy of n bytes, so that a read past them is out of bounds. */
static unsigned char *dup_exact(const unsigned char *p, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    assert_non_null(c);
    memcpy(c, p, n);
    return c;
}

static void test_orientation(void **state)
{
    (void)state;
    for (int r = 0; r < 200; r++) {
        const int le = r % 2, entries = 1 + (int)(test_rand() % 20),
                  k = (int)(test_rand() % (unsigned)entries), o = 1 + (int)(test_rand() % 8),
                  v = 1 + (int)(test_rand() % 8);
        size_t n, end;
        unsigned char *t = make_exif(le, entries, k, o, &n, &end), *before = dup_exact(t, n);

        assert_int_equal(gf_exif_orientation(t, n), o);
        assert_null(gf_exif_check(t, n));
        assert_int_equal(gf_exif_set_orientation(t, n, v), 1);
        assert_int_equal(gf_exif_orientation(t, n), v);
        for (size_t i = 0; i < n; i++) /* only the value's 2 bytes changed */
            if (i != end - 4 && i != end - 3)
                assert_int_equal(t[i], before[i]);
        /* the value in the file's byte order */
        assert_int_equal(le ? t[end - 4] | t[end - 3] << 8 : t[end - 4] << 8 | t[end - 3], v);
        /* every truncation: the tag while its entry is whole, else none */
        for (size_t m = 0; m < n; m++) {
            unsigned char *c = dup_exact(t, m);
            assert_int_equal(gf_exif_orientation(c, m), m >= end ? v : 0);
            assert_int_equal(gf_exif_set_orientation(c, m, 1), m >= end);
            free(c);
        }
        /* JPEG's prefix is skipped where a container keeps it */
        unsigned char *pre = malloc(n + 6);
        memcpy(pre, "Exif\0\0", 6);
        memcpy(pre + 6, t, n);
        assert_int_equal(gf_exif_orientation_or_1(pre, n + 6), v);
        free(pre);
        free(before);
        free(t);
    }
}

static void test_malformed(void **state)
{
    size_t n, end;
    (void)state;
    for (int le = 0; le < 2; le++) {
        /* no Orientation */
        unsigned char *t = make_exif(le, 5, -1, 0, &n, &end);
        assert_int_equal(gf_exif_orientation(t, n), 0);
        assert_int_equal(gf_exif_orientation_or_1(t, n), 1);
        assert_int_equal(gf_exif_set_orientation(t, n, 1), 0);
        /* a huge entry count runs past the end: none */
        put16(t + 8, 0xffff, le);
        assert_int_equal(gf_exif_orientation(t, n), 0);
        free(t);

        t = make_exif(le, 3, 2, 6, &n, &end);
        unsigned char *good = dup_exact(t, n);
        /* IFD0 offset past the end, at it, below the header, huge */
        const uint32_t offs[] = {(uint32_t)n, (uint32_t)n - 1, 0, 4, 0xffffffffu, 0x80000000u};
        for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            memcpy(t, good, n);
            put32(t + 4, offs[i], le);
            assert_int_equal(gf_exif_orientation(t, n), 0);
            assert_int_equal(gf_exif_set_orientation(t, n, 1), 0);
            assert_non_null(gf_exif_check(t, n));
            assert_memory_equal(t + 8, good + 8, n - 8);
        }
        /* the wrong magic number, type, count, values out of range */
        memcpy(t, good, n);
        put16(t + 2, 43, le);
        assert_int_equal(gf_exif_orientation(t, n), 0);
        assert_non_null(gf_exif_check(t, n));
        memcpy(t, good, n);
        put16(t + end - 10, 4, le); /* LONG */
        assert_int_equal(gf_exif_orientation(t, n), 0);
        memcpy(t, good, n);
        put32(t + end - 8, 2, le); /* count 2 */
        assert_int_equal(gf_exif_orientation(t, n), 0);
        for (unsigned v = 0; v < 20; v += 9) { /* 0, 9, 18 */
            memcpy(t, good, n);
            put16(t + end - 4, v, le);
            assert_int_equal(gf_exif_orientation(t, n), 0);
            assert_int_equal(gf_exif_orientation_or_1(t, n), 1);
        }
        free(good);
        free(t);
    }
    /* no TIFF header at all, too big */
    assert_non_null(gf_exif_check((const unsigned char *)"Exif\0\0II", 8));
    unsigned char *big = calloc(1, GF_MAX_EXIF_BYTES + 1);
    memcpy(big, "II*\0\x08\0\0\0", 8);
    assert_null(gf_exif_check(big, GF_MAX_EXIF_BYTES));
    assert_non_null(gf_exif_check(big, GF_MAX_EXIF_BYTES + 1));
    free(big);
    /* random bytes, half of them behind a valid header: never past the end */
    for (int r = 0; r < 20000; r++) {
        size_t m = test_rand() % 80;
        unsigned char *c = malloc(m ? m : 1);
        for (size_t i = 0; i < m; i++)
            c[i] = (unsigned char)test_rand();
        if (r % 2 && m >= 8) {
            memcpy(c, r % 4 == 1 ? "II*\0" : "MM\0*", 4);
            c[r % 4 == 1 ? 4 : 7] = (unsigned char)(test_rand() % m);
            c[r % 4 == 1 ? 7 : 4] = c[5] = c[6] = 0;
        }
        const int o = gf_exif_orientation(c, m);
        assert_true(o >= 0 && o <= 8);
        assert_int_equal(gf_exif_set_orientation(c, m, 3), o != 0);
        free(c);
    }
}

/* A random ICC profile of n bytes (n >= 128): a valid header for colour
 * space `space` ("RGB ", "GRAY"), random bytes elsewhere. */
static unsigned char *make_icc(size_t n, const char *space)
{
    unsigned char *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)test_rand();
    put32(p, (uint32_t)n, 0);
    memcpy(p + 16, space, 4);
    memcpy(p + 36, "acsp", 4);
    return p;
}

static void test_icc_check(void **state)
{
    (void)state;
    size_t n = 128 + test_rand() % 5000;
    unsigned char *p = make_icc(n, "RGB ");
    assert_null(gf_icc_check(p, n));
    assert_non_null(gf_icc_check(p, n - 1)); /* the size field disagrees */
    assert_non_null(gf_icc_check(p, 127));
    p[37] ^= 1;
    assert_non_null(gf_icc_check(p, n));
    free(p);
    p = make_icc(GF_MAX_ICC_BYTES + 1, "RGB ");
    assert_non_null(gf_icc_check(p, GF_MAX_ICC_BYTES + 1));
    free(p);

    /* gf_meta_prepare: the colour space against the channels; upright */
    size_t en, end;
    gf_meta m = {0};
    m.icc_len = 300;
    m.icc = make_icc(m.icc_len, "RGB ");
    m.exif = make_exif(1, 4, 1, 8, &en, &end);
    m.exif_len = en;
    gf_meta_prepare(&m, 3, 0);
    assert_non_null(m.icc);
    assert_int_equal(gf_exif_orientation(m.exif, m.exif_len), 8);
    gf_meta_prepare(&m, 4, 1);
    assert_non_null(m.icc);
    assert_int_equal(gf_exif_orientation(m.exif, m.exif_len), 1);
    gf_meta_prepare(&m, 1, 0);
    assert_null(m.icc);
    assert_int_equal(m.icc_len, 0);
    gf_meta_free(&m);
    m.icc_len = 200;
    m.icc = make_icc(m.icc_len, "GRAY");
    gf_meta_prepare(&m, 2, 0);
    assert_non_null(m.icc);
    gf_meta_prepare(&m, 3, 0);
    assert_null(m.icc);
    gf_meta_free(&m);
    gf_meta_free(NULL);
}

/* What each format keeps. */
typedef struct fmt_case {
    gf_format format;
    int icc, exif; /* kept: 1 byte for byte; exif 2: rebuilt from TIFF tags (the
                      Orientation read back; test_tiff_exif checks the rest) */
} fmt_case;

static const fmt_case formats[] = {
    {GF_FMT_JPEG, 1, 1},
    {GF_FMT_PNG, 1, 1},
    {GF_FMT_WEBP, 1, 1},
    {GF_FMT_TIFF, 1, 2},
};
#define NFORMATS (int)(sizeof formats / sizeof formats[0])

static gf_encode_opts opts_for(gf_format f, const gf_meta *m)
{
    gf_encode_opts o;
    memset(&o, 0, sizeof o);
    o.format = f;
    o.png_level = 1;
    o.quality = 90;
    o.lossless = 1;
    o.meta = m;
    return o;
}

static void test_roundtrip(void **state)
{
    (void)state;
    for (int fi = 0; fi < NFORMATS; fi++) {
        const fmt_case *fc = &formats[fi];
        for (int r = 0; r < 6; r++) {
            gf_image im, back;
            gf_load_info info;
            gf_meta m = {0};
            unsigned char *plain, *with, *again;
            size_t plain_len, with_len, again_len, en, end;
            const int o = 1 + (int)(test_rand() % 8), channels = r % 3 == 2 ? 1 : 3;
            /* large profiles take several JPEG segments */
            m.icc_len = r % 2 ? 65519 * (1 + test_rand() % 3) + test_rand() % 1000
                              : 128 + test_rand() % 4000;
            m.icc = make_icc(m.icc_len, channels == 1 ? "GRAY" : "RGB ");
            m.exif = make_exif(r % 2, 1 + (int)(test_rand() % 12), 0, o, &en, &end);
            m.exif_len = en;
            random_layout(&im, 1 + (int)(test_rand() % 50), 1 + (int)(test_rand() % 50),
                          channels, 8);
            gf_encode_opts none = opts_for(fc->format, NULL), om = opts_for(fc->format, &m);
            gf_meta empty = {0};
            gf_encode_opts oe = opts_for(fc->format, &empty);
            assert_int_equal(gf_encode(&im, &none, &plain, &plain_len), 0);
            assert_int_equal(gf_encode(&im, &oe, &again, &again_len), 0);
            /* no metadata: the same bytes as before */
            assert_int_equal(again_len, plain_len);
            assert_memory_equal(again, plain, plain_len);
            free(again);
            assert_int_equal(gf_encode(&im, &om, &with, &with_len), 0);
            assert_true(with_len > plain_len);

            /* without GF_DECODE_META nothing is kept, the orientation read */
            assert_int_equal(gf_decode("t", with, with_len, &lim, 0, &back, &info), 0);
            assert_null(info.meta.icc);
            assert_null(info.meta.exif);
            assert_int_equal(info.orientation, fc->exif ? o : 1);
            gf_image_free(&back);

            assert_int_equal(gf_decode("t", with, with_len, &lim, GF_DECODE_META, &back, &info),
                             0);
            assert_int_equal(back.width, im.width);
            assert_int_equal(back.height, im.height);
            if (fc->icc) {
                assert_int_equal(info.meta.icc_len, m.icc_len);
                assert_memory_equal(info.meta.icc, m.icc, m.icc_len);
            } else {
                assert_null(info.meta.icc);
            }
            if (fc->exif == 1) {
                assert_int_equal(info.meta.exif_len, m.exif_len);
                assert_memory_equal(info.meta.exif, m.exif, m.exif_len);
                assert_int_equal(info.orientation, o);
            } else if (fc->exif == 2) {
                assert_non_null(info.meta.exif);
                assert_int_equal(gf_exif_orientation(info.meta.exif, info.meta.exif_len), o);
                assert_int_equal(info.orientation, o);
            } else {
                assert_null(info.meta.exif);
            }
            gf_meta_free(&info.meta);
            gf_image_free(&back);
            free(plain);
            free(with);
            gf_image_free(&im);
            gf_meta_free(&m);
        }
    }
}

/* Appends an IFD entry (tag, type, count, the value's bytes in byte
 * order le, already swapped) to the EXIF being built in b (*n bytes so
 * far; values of more than 4 bytes at *v, which grows). */
typedef struct {
    unsigned tag, type;
    uint32_t count;
    const void *value; /* count values, host order */
} spec_entry;

static size_t put_value(unsigned char *b, size_t at, const spec_entry *s, int le)
{
    const size_t ts = gf_tiff_type_size(s->type);
    for (uint32_t i = 0; i < s->count; i++) {
        const unsigned char *v = (const unsigned char *)s->value + i * (ts == 8 ? 8 : ts);
        if (ts == 1) {
            b[at + i] = v[0];
        } else if (ts == 2) {
            uint16_t x;
            memcpy(&x, v, 2);
            put16(b + at + 2 * i, x, le);
        } else if (ts == 4) {
            uint32_t x;
            memcpy(&x, v, 4);
            put32(b + at + 4 * i, x, le);
        } else { /* rationals: two uint32 */
            uint32_t x[2];
            memcpy(x, v, 8);
            put32(b + at + 8 * i, x[0], le);
            put32(b + at + 8 * i + 4, x[1], le);
        }
    }
    return s->count * ts;
}

/* An EXIF of byte order le with IFD0 entries e0, an EXIF IFD e1 and a GPS
 * IFD e2 (each in ascending tag order), laid out by hand. */
static unsigned char *spec_exif(int le, const spec_entry *const dirs[3], const int k[3], size_t *n)
{
    unsigned char *b = calloc(1, 4096);
    size_t at[3], pos = 8, val;
    int ptrs = (k[1] > 0) + (k[2] > 0);

    assert_non_null(b);
    memcpy(b, le ? "II" : "MM", 2);
    put16(b + 2, 42, le);
    put32(b + 4, 8, le);
    for (int d = 0; d < 3; d++) {
        at[d] = pos;
        pos += 2 + 12 * (size_t)(k[d] + (d ? 0 : ptrs)) + 4;
    }
    val = pos;
    for (int d = 0; d < 3; d++) {
        int m = 0;
        put16(b + at[d], (unsigned)(k[d] + (d ? 0 : ptrs)), le);
        for (int i = 0; i < k[d]; i++, m++) {
            const spec_entry *s = &dirs[d][i];
            unsigned char *e = b + at[d] + 2 + 12 * m;
            const size_t bytes = s->count * gf_tiff_type_size(s->type);
            put16(e, s->tag, le);
            put16(e + 2, s->type, le);
            put32(e + 4, s->count, le);
            if (bytes <= 4) {
                put_value(e + 8, 0, s, le);
            } else {
                put32(e + 8, (uint32_t)val, le);
                val += put_value(b, val, s, le);
                val += val & 1;
            }
        }
        for (int p = 1; d == 0 && p < 3; p++) /* the pointers, last: their tags are highest */
            if (k[p]) {
                unsigned char *e = b + at[0] + 2 + 12 * m++;
                put16(e, p == 1 ? GF_TAG_EXIF_IFD : GF_TAG_GPS_IFD, le);
                put16(e + 2, GF_TIFF_LONG, le);
                put32(e + 4, 1, le);
                put32(e + 8, (uint32_t)at[p], le);
            }
    }
    *n = val;
    return b;
}

/* Entry tag of the directory dir of the EXIF x, or NULL. */
static const gf_ifd_entry *find(const gf_exif_dirs *x, int dir, unsigned tag)
{
    for (int i = 0; i < x->n[dir]; i++)
        if (x->e[dir][i].tag == tag)
            return &x->e[dir][i];
    return NULL;
}

/* EXIF into TIFF and back (gf_encode_tiff's EXIF and GPS directories,
 * gf_decode_tiff's EXIF rebuilt from them), both byte orders: IFD0's
 * picture tags (text, Orientation, resolution), a stray EXIF tag in IFD0
 * (as Pillow writes DateTimeOriginal), EXIF's own (text, rationals, a
 * SHORT array, UNDEFINED bytes, a tag libtiff does not know) and GPS's,
 * each with its type, count and values; IFD0's structure tags (ImageWidth)
 * left out. Then gf_exif_parse and gf_exif_build: parse(build(parse(t)))
 * gives the same entries. */
static void test_tiff_exif(void **state)
{
    (void)state;
    static const char make[] = "Canon", model[] = "EOS R5", when[] = "2021:03:04 05:06:07";
    static const uint16_t orient = 6, unit = 2, iso[2] = {400, 800};
    static const uint32_t width = 9999, res[2] = {300, 1}, expo[2] = {1, 125},
                          fnum[2] = {28, 10}, lat[6] = {12, 1, 30, 1, 15, 2}, odd = 123456;
    static const unsigned char ver[4] = {'0', '2', '3', '2'}, comment[11] = "ASCII\0\0\0hi!";
    const spec_entry ifd0[] = {
        {256, GF_TIFF_LONG, 1, &width}, /* structure: left out */
        {271, GF_TIFF_ASCII, sizeof make, make},  {272, GF_TIFF_ASCII, sizeof model, model},
        {274, GF_TIFF_SHORT, 1, &orient},         {282, GF_TIFF_RATIONAL, 1, res},
        {296, GF_TIFF_SHORT, 1, &unit},           {0x9003, GF_TIFF_ASCII, sizeof when, when},
    };
    const spec_entry exif[] = {
        {0x829a, GF_TIFF_RATIONAL, 1, expo}, {0x829d, GF_TIFF_RATIONAL, 1, fnum},
        {0x8827, GF_TIFF_SHORT, 2, iso},     {0x9000, GF_TIFF_UNDEFINED, 4, ver},
        {0x9003, GF_TIFF_ASCII, sizeof when, when}, {0x9286, GF_TIFF_UNDEFINED, 11, comment},
        {0xa4ff, GF_TIFF_LONG, 1, &odd}, /* not a tag libtiff knows */
    };
    static const unsigned char gps_ver[4] = {2, 3, 0, 0};
    const spec_entry gps[] = {{0, GF_TIFF_BYTE, 4, gps_ver}, /* tag 0 is a tag */
                              {1, GF_TIFF_ASCII, 2, "N"},
                              {2, GF_TIFF_RATIONAL, 3, lat}};
    const spec_entry *const dirs[3] = {ifd0, exif, gps};
    const int k[3] = {7, 7, 3};

    for (int le = 0; le < 2; le++) {
        size_t n, bn, on;
        unsigned char *t = spec_exif(le, dirs, k, &n), *built, *outb;
        gf_meta m = {0};
        gf_image im, back;
        gf_load_info info;
        gf_exif_dirs *a = malloc(sizeof *a), *b = malloc(sizeof *b);

        assert_non_null(a);
        assert_non_null(b);
        assert_null(gf_exif_check(t, n));
        /* parse, build, parse: the same entries */
        assert_null(gf_exif_parse(t, n, a));
        assert_int_equal(a->n[0], 7);
        assert_int_equal(a->n[1], 7);
        assert_int_equal(a->n[2], 3);
        assert_non_null(built = gf_exif_build(a, &bn));
        assert_null(gf_exif_parse(built, bn, b));
        for (int d = 0; d < 3; d++) {
            assert_int_equal(b->n[d], a->n[d]);
            for (int i = 0; i < a->n[d]; i++) {
                const gf_ifd_entry *x = &a->e[d][i], *y = find(b, d, x->tag);
                assert_non_null(y);
                assert_int_equal(y->type, x->type);
                assert_int_equal(y->count, x->count);
                assert_memory_equal(y->value, x->value, x->count * gf_tiff_type_size(x->type));
            }
        }
        free(built);

        /* into a TIFF and back */
        m.exif = t;
        m.exif_len = n;
        random_layout(&im, 5, 4, 3, 8);
        gf_encode_opts o = opts_for(GF_FMT_TIFF, &m);
        assert_int_equal(gf_encode(&im, &o, &outb, &on), 0);
        assert_int_equal(gf_decode("t", outb, on, &lim, GF_DECODE_META, &back, &info), 0);
        assert_int_equal(info.orientation, 6);
        assert_non_null(info.meta.exif);
        assert_null(gf_exif_parse(info.meta.exif, info.meta.exif_len, b));
        assert_int_equal(b->le, 1); /* gpufilt's TIFFs are little-endian */
        assert_null(find(b, 0, 256));
        for (int d = 0; d < 3; d++)
            for (int i = 0; i < a->n[d]; i++) {
                const gf_ifd_entry *x = &a->e[d][i], *y = find(b, d, x->tag);
                if (d == 0 && x->tag == 256)
                    continue;
                if (!y)
                    fail_msg("dir %d tag 0x%x lost", d, x->tag);
                assert_int_equal(y->type, x->type);
                assert_int_equal(y->count, x->count);
                for (uint64_t j = 0; j < x->count; j++)
                    if (x->type == GF_TIFF_RATIONAL) {
                        /* libtiff 4.5 keeps EXIF's rationals as floats (GPS's and
                         * the resolution as doubles): equal to float precision */
                        const double xv = gf_ifd_real(x, j, a->le), yv = gf_ifd_real(y, j, b->le);
                        if (fabs(yv - xv) > 1.2e-7 * fabs(xv))
                            fail_msg("dir %d tag 0x%x: %.17g back as %.17g", d, x->tag, xv, yv);
                    }
                    else
                        assert_int_equal(gf_ifd_int(y, j, b->le), gf_ifd_int(x, j, a->le));
            }
        /* no other entries in the EXIF and GPS directories */
        assert_int_equal(b->n[1], 7);
        assert_int_equal(b->n[2], 3);
        gf_meta_free(&info.meta);
        gf_image_free(&back);
        gf_image_free(&im);
        free(outb);
        free(a);
        free(b);
        free(t);
    }
}

/* A JPEG whose profile is broken: decoded, the profile dropped. */
static void test_jpeg_bad_icc(void **state)
{
    (void)state;
    gf_image im, back;
    gf_load_info info;
    gf_encode_opts o = opts_for(GF_FMT_JPEG, NULL);
    unsigned char *buf;
    size_t len;
    gf_meta m = {0};

    random_layout(&im, 16, 16, 3, 8);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(gf_encode(&im, &o, &buf, &len), 0);
        m.icc_len = k == 2 ? 70000 : 400;
        m.icc = make_icc(m.icc_len, "RGB ");
        if (k == 0)
            m.icc[3] ^= 1; /* the size field disagrees */
        if (k == 1)
            memset(m.icc + 36, 'x', 4); /* no "acsp" */
        assert_int_equal(gf_jpeg_add_meta(&buf, &len, &m, "t"), 0);
        if (k == 2) { /* the second of two segments renumbered as the first */
            unsigned char *p = buf;
            int seen = 0;
            for (size_t i = 0; i + 14 < len; i++)
                if (!memcmp(buf + i, "ICC_PROFILE", 12) && ++seen == 2)
                    p = buf + i;
            assert_int_equal(seen, 2);
            p[12] = 1;
        }
        assert_int_equal(gf_decode("t", buf, len, &lim, GF_DECODE_META, &back, &info), 0);
        assert_null(info.meta.icc);
        gf_meta_free(&info.meta);
        gf_image_free(&back);
        gf_meta_free(&m);
        free(buf);
    }
    gf_image_free(&im);
}

/* PNG and WebP files that hold what the checks refuse (written as given):
 * decoded, those dropped, the rest kept. */
static void test_refused_kept_out(void **state)
{
    (void)state;
    const gf_format fmts[] = {GF_FMT_PNG, GF_FMT_WEBP};
    for (int fi = 0; fi < 2; fi++)
        for (int k = 0; k < 3; k++) {
            gf_image im, back;
            gf_load_info info;
            gf_meta m = {0};
            unsigned char *buf;
            size_t len, end;
            random_layout(&im, 9, 7, 3, 8);
            m.icc_len = 200 + test_rand() % 300;
            m.icc = make_icc(m.icc_len, "RGB ");
            m.exif = make_exif(k % 2, 3, 1, 5, &m.exif_len, &end);
            if (k == 0) { /* EXIF over the limit */
                m.exif = realloc(m.exif, GF_MAX_EXIF_BYTES + 1);
                memset(m.exif + m.exif_len, 0, GF_MAX_EXIF_BYTES + 1 - m.exif_len);
                m.exif_len = GF_MAX_EXIF_BYTES + 1;
            } else if (k == 1) { /* no "acsp" */
                m.icc[38] = 'x';
            } else { /* a size field one short */
                put32(m.icc, (uint32_t)m.icc_len - 1, 0);
            }
            gf_encode_opts o = opts_for(fmts[fi], &m);
            assert_int_equal(gf_encode(&im, &o, &buf, &len), 0);
            assert_int_equal(gf_decode("t", buf, len, &lim, GF_DECODE_META, &back, &info), 0);
            assert_int_equal(back.width, 9);
            if (k == 0) {
                assert_null(info.meta.exif);
                assert_non_null(info.meta.icc);
            } else {
                assert_null(info.meta.icc);
                assert_int_equal(info.meta.exif_len, m.exif_len);
                assert_memory_equal(info.meta.exif, m.exif, m.exif_len);
            }
            assert_int_equal(info.orientation, 5);
            gf_meta_free(&info.meta);
            gf_image_free(&back);
            gf_image_free(&im);
            gf_meta_free(&m);
            free(buf);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orientation), cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_icc_check),   cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_tiff_exif),
        cmocka_unit_test(test_jpeg_bad_icc), cmocka_unit_test(test_refused_kept_out),
    };
    test_state(); /* print the seed first */
    return cmocka_run_group_tests_name("meta", tests, NULL, NULL);
}
