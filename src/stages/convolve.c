/* convolve.c - the user convolution stage: --convolve KERNEL, modified by
 * --divisor N and --bias B, on the stencil framework (convolve.h). */
#include "convolve.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_convolve_params) <= GF_STAGE_PARAMS, "convolve params");

/* The largest @FILE read: a 15x15 kernel of 7-character weights is under
 * 2 KB; comments are not part of the format. */
#define MAX_FILE_BYTES 65536

static int check_params(const gf_convolve_params *p)
{
    if (p->st.kw < 1 || p->st.kh < 1 || p->st.kw > GF_CONVOLVE_MAX_SIDE ||
        p->st.kh > GF_CONVOLVE_MAX_SIDE || p->st.kw % 2 == 0 || p->st.kh % 2 == 0 ||
        p->divisor == 0 || p->divisor < -GF_CONVOLVE_MAX_DIVISOR ||
        p->bias < -GF_CONVOLVE_MAX_BIAS)
        return gf_err(GF_EINTERNAL, NULL, "convolve: bad arguments (window %dx%d, divisor %d)",
                      p->st.kw, p->st.kh, (int)p->divisor);
    for (int k = 0; k < p->st.kw * p->st.kh; k++)
        if (p->weights[k] < -GF_CONVOLVE_MAX_WEIGHT || p->weights[k] > GF_CONVOLVE_MAX_WEIGHT)
            return gf_err(GF_EINTERNAL, NULL, "convolve: weight %d out of range", k + 1);
    return 0;
}

static int check_args(const gf_image *in, const gf_image *out, const gf_convolve_params *p)
{
    if (out->width != in->width || out->height != in->height ||
        out->channels != in->channels || out->bits != in->bits ||
        !gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "convolve: bad arguments (shapes)");
    return check_params(p);
}

int gf_convolve_gold(const gf_image *in, gf_image *out, const gf_convolve_params *p)
{
    const int w = in->width, h = in->height, rx = p->st.kw / 2, ry = p->st.kh / 2;
    const int64_t max = gf_sample_max(in->bits), n = p->divisor;
    const int64_t an = n < 0 ? -n : n;
    int rc = check_args(in, out, p);

    if (rc)
        return rc;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < in->channels; c++) {
                int64_t s = 0;
                for (int dy = -ry; dy <= ry; dy++)
                    for (int dx = -rx; dx <= rx; dx++)
                        s += (int64_t)p->weights[(dy + ry) * p->st.kw + dx + rx] *
                             gf_stencil_at(in, x + dx, y + dy, c, p->st.border);
                /* round(s / n), ties away from zero */
                const int64_t as = s < 0 ? -s : s, q = (2 * as + an) / (2 * an);
                int64_t v = ((s < 0) != (n < 0) ? -q : q) + p->bias;
                gf_sample_set(out, x, y, c, (unsigned)(v < 0 ? 0 : v > max ? max : v));
            }
    return 0;
}

/* ---- The fast path. The ring holds the window's kh padded rows (no row
 * rule); the column rule makes an output row CHUNK samples at a time: the
 * taps' products added into a row of sums (a loop over the taps, the chunk
 * as the inner loop, which the compiler vectorises), then the rounding of
 * each sum in another vector loop. The taps with a zero weight are left
 * out. */
#define CHUNK 2048 /* samples a pass: the sums (4 KB or 8 KB) stay in L1 */

/* GCC's -O3 unroll-and-jam fuses two taps' passes into one loop that it
 * then leaves scalar: 5x5 on 5120x2880 gray took 65 ms with it, 7.4 ms
 * without (GCC 12). */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_JAM __attribute__((optimize("no-loop-unroll-and-jam")))
#else
#define NO_JAM
#endif

typedef struct tap {
    int dy;     /* ring row */
    size_t off; /* samples from the chunk's start: dx * channels */
    int32_t w;
} tap;

typedef struct conv_ctx {
    tap taps[GF_CONVOLVE_MAX_TAPS];
    int ntaps;
    gf_convolve_div d;   /* the narrow rounding */
    int32_t divisor, bias; /* the wide one's */
} conv_ctx;

/* The sums of one chunk of m samples starting at i0, in S, then rounded
 * into o[i0..i0+m). T the sample type. The taps go four to a pass (any four:
 * each pass reads four shifted input rows and the sums once), then one by
 * one. In 16-bit sums every partial sum is a sum of a subset of the taps'
 * products, within the bound. */
#define SUMS(S, T)                                                                            \
    do {                                                                                      \
        int t = 0;                                                                            \
        for (size_t i = 0; i < m; i++)                                                        \
            acc[i] = 0;                                                                       \
        for (; t + 4 <= ntaps; t += 4) {                                                      \
            const T *restrict x0 = (const T *)win[taps[t].dy] + i0 + taps[t].off;             \
            const T *restrict x1 = (const T *)win[taps[t + 1].dy] + i0 + taps[t + 1].off;     \
            const T *restrict x2 = (const T *)win[taps[t + 2].dy] + i0 + taps[t + 2].off;     \
            const T *restrict x3 = (const T *)win[taps[t + 3].dy] + i0 + taps[t + 3].off;     \
            const S w0 = (S)taps[t].w, w1 = (S)taps[t + 1].w, w2 = (S)taps[t + 2].w,          \
                    w3 = (S)taps[t + 3].w;                                                    \
            for (size_t i = 0; i < m; i++)                                                    \
                acc[i] = (S)(acc[i] + (S)(w0 * (S)x0[i]) + (S)(w1 * (S)x1[i]) +               \
                             (S)(w2 * (S)x2[i]) + (S)(w3 * (S)x3[i]));                        \
        }                                                                                     \
        for (; t < ntaps; t++) {                                                              \
            const T *restrict x = (const T *)win[taps[t].dy] + i0 + taps[t].off;              \
            const S wt = (S)taps[t].w;                                                        \
            for (size_t i = 0; i < m; i++)                                                    \
                acc[i] = (S)(acc[i] + (S)(wt * (S)x[i]));                                     \
        }                                                                                     \
    } while (0)

/* Narrow rounding (gf_convolve_finish, written out for the vectoriser). */
#define FINISH(T)                                                                             \
    do {                                                                                      \
        T *restrict oo = (T *)(void *)out + i0;                                               \
        for (size_t i = 0; i < m; i++) {                                                      \
            const int32_t s = acc[i];                                                         \
            const uint32_t a = (uint32_t)(s < 0 ? -s : s);                                    \
            const int32_t q = (int32_t)(((uint64_t)(a + add) * mul) >> shift);               \
            int32_t v = (s < 0) != neg ? -q : q;                                              \
            v = v < lo ? lo : v;                                                              \
            v = v > hi ? hi : v;                                                              \
            oo[i] = (T)(v + bias);                                                            \
        }                                                                                     \
    } while (0)

/* The rounding constants and the taps, copied before the loops (an output
 * store may alias anything read through a pointer). */
#define LOCALS                                                                                \
    const conv_ctx *ctx = j->ctx;                                                             \
    const size_t n = j->n;                                                                    \
    const int ntaps = ctx->ntaps;                                                             \
    const tap *restrict taps = ctx->taps;                                                     \
    const uint32_t add = ctx->d.add, mul = ctx->d.m;                                          \
    const int shift = ctx->d.shift, neg = ctx->d.neg;                                         \
    const int32_t lo = ctx->d.lo, hi = ctx->d.hi, bias = ctx->d.bias;                        \
    (void)gone, (void)src, (void)accv, (void)first

/* 8-bit samples, bound below 2^15: 16-bit sums (each product and every
 * partial sum is within the bound). */
NO_JAM GF_CLONES static void col_8_s16(const gf_stencil_job *j, const void *const *win,
                                const void *gone, const unsigned char *src, unsigned char *out,
                                void *accv, int first)
{
    LOCALS;
    int16_t acc16[CHUNK];
    int32_t acc[CHUNK];

    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        {
            int16_t *restrict acc = acc16;
            SUMS(int16_t, uint8_t);
        }
        for (size_t i = 0; i < m; i++)
            acc[i] = acc16[i];
        FINISH(uint8_t);
    }
}

#define COL_32(NAME, T)                                                                       \
    NO_JAM GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,        \
                                      const void *gone, const unsigned char *src,             \
                                      unsigned char *out, void *accv, int first)              \
    {                                                                                         \
        LOCALS;                                                                               \
        int32_t acc[CHUNK];                                                                   \
        for (size_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
            const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;                                 \
            SUMS(int32_t, T);                                                                 \
            FINISH(T);                                                                        \
        }                                                                                     \
    }
COL_32(col_8_s32, uint8_t)
COL_32(col_16_s32, uint16_t)

/* Any bound: 64-bit sums, divided one by one (gf_convolve_finish_wide). */
#define COL_64(NAME, T)                                                                       \
    NO_JAM static void NAME(const gf_stencil_job *j, const void *const *win, const void *gone, \
                     const unsigned char *src, unsigned char *out, void *accv, int first)     \
    {                                                                                         \
        LOCALS;                                                                               \
        const int32_t divisor = ctx->divisor, wbias = ctx->bias;                              \
        const unsigned max = sizeof(T) == 1 ? 255u : 65535u;                                  \
        int64_t acc[CHUNK];                                                                   \
        (void)add, (void)mul, (void)shift, (void)neg, (void)lo, (void)hi, (void)bias;         \
        for (size_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
            const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;                                 \
            T *restrict oo = (T *)(void *)out + i0;                                           \
            SUMS(int64_t, T);                                                                 \
            for (size_t i = 0; i < m; i++)                                                    \
                oo[i] = (T)gf_convolve_finish_wide(acc[i], divisor, wbias, max);              \
        }                                                                                     \
    }
COL_64(col_8_s64, uint8_t)
COL_64(col_16_s64, uint16_t)

int gf_convolve_cpu(const gf_image *in, gf_image *out, const gf_convolve_params *p)
{
    conv_ctx *ctx;
    gf_stencil_cpu r = {NULL, 0, NULL, 0};
    int rc = check_args(in, out, p);

    if (rc)
        return rc;
    if (!(ctx = malloc(sizeof *ctx)))
        return gf_err(GF_EINTERNAL, NULL, "convolve: out of memory");
    ctx->ntaps = 0;
    for (int dy = 0; dy < p->st.kh; dy++)
        for (int dx = 0; dx < p->st.kw; dx++)
            if (p->weights[dy * p->st.kw + dx])
                ctx->taps[ctx->ntaps++] = (tap){dy, (size_t)dx * (size_t)in->channels,
                                                p->weights[dy * p->st.kw + dx]};
    ctx->divisor = p->divisor;
    ctx->bias = p->bias;
    const int64_t bound = gf_convolve_bound(p, in->bits);
    if (!gf_convolve_narrow(p, in->bits))
        r.col = in->bits == 8 ? col_8_s64 : col_16_s64;
    else {
        ctx->d = gf_convolve_div_of(p, in->bits);
        r.col = in->bits == 16 ? col_16_s32 : bound < 32768 ? col_8_s16 : col_8_s32;
    }
    const gf_stencil_job j = {NULL,         ctx,      in->width, in->height,
                              in->channels, in->bits, p->st.kw,  p->st.kh,
                              p->st.border, (size_t)in->width * (size_t)in->channels};
    rc = gf_stencil_cpu_run(&r, &j, in, out);
    free(ctx);
    return rc;
}

static int convolve_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_convolve_gold(in, out, GF_CPARAMS(s, gf_convolve_params));
}

static int convolve_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_convolve_cpu(in, out, GF_CPARAMS(s, gf_convolve_params));
}

static int convolve_in_place(const gf_stage *s, gf_image *img)
{
    return convolve_cpu(s, img, img);
}

static void convolve_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_convolve_params *p = GF_CPARAMS(s, gf_convolve_params);
    snprintf(buf, n, "convolve %dx%d", p->st.kw, p->st.kh);
}

/* A 1x1 kernel whose weight is the divisor, with no bias, gives every
 * sample back. */
static int convolve_unchanged(const gf_stage *s, const gf_shape *in)
{
    const gf_convolve_params *p = GF_CPARAMS(s, gf_convolve_params);
    (void)in;
    return p->st.kw == 1 && p->st.kh == 1 && p->weights[0] == p->divisor && p->bias == 0;
}

/* ---- The command line. */

/* An optionally signed decimal integer at *s, of magnitude at most max:
 * 0 with *v set and *s past its last digit, or -1 (no digits, or too
 * large). */
static int scan_int(const char **s, long long max, long long *v)
{
    const char *p = *s;
    long long x = 0;
    int neg = 0, digits = 0;

    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if (x <= max)
            x = x * 10 + (*p - '0');
    if (!digits || x > max)
        return -1;
    *s = p;
    *v = neg ? -x : x;
    return 0;
}

/* A whole string that is an integer in [-max, max]. */
static int whole_int(const char *s, long long max, long long *v)
{
    return scan_int(&s, max, v) == 0 && *s == 0 ? 0 : -1;
}

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

int gf_convolve_parse_kernel(const char *what, const char *text, gf_convolve_params *p)
{
    const char *s = skip_space(text), *colon = strchr(text, ':');
    long long kw = 0, kh = 0, sum = 0;
    int count = 0;

    if (!colon)
        return gf_err(GF_EUSAGE, NULL,
                      "%s: the kernel must be WxH:V,V,... (or @FILE), not '%.64s'", what, text);
    if (!(*s >= '0' && *s <= '9') || scan_int(&s, 99, &kw) || *s++ != 'x' ||
        !(*s >= '0' && *s <= '9') || scan_int(&s, 99, &kh) || skip_space(s) != colon ||
        kw < 1 || kh < 1 || kw > GF_CONVOLVE_MAX_SIDE || kh > GF_CONVOLVE_MAX_SIDE ||
        kw % 2 == 0 || kh % 2 == 0)
        return gf_err(GF_EUSAGE, NULL, "%s: size must be WxH, W and H odd, 1..%d each, not '%.*s'",
                      what, GF_CONVOLVE_MAX_SIDE, (int)(colon - text > 32 ? 32 : colon - text),
                      text);
    s = colon + 1;
    for (;;) {
        const char *start;
        long long v;
        s = skip_space(s);
        if (!*s)
            break;
        if (count > 0 && *s == ',')
            s = skip_space(s + 1);
        start = s;
        while (*s && *s != ',' && !isspace((unsigned char)*s))
            s++;
        const int len = (int)(s - start);
        char tok[24];
        if (len == 0 || len >= (int)sizeof tok)
            v = GF_CONVOLVE_MAX_WEIGHT + 1LL;
        else {
            memcpy(tok, start, (size_t)len);
            tok[len] = 0;
            if (whole_int(tok, GF_CONVOLVE_MAX_WEIGHT, &v))
                v = GF_CONVOLVE_MAX_WEIGHT + 1LL;
        }
        if (v > GF_CONVOLVE_MAX_WEIGHT)
            return gf_err(GF_EUSAGE, NULL,
                          "%s: weight %d, '%.*s', is not an integer in -%d..%d", what, count + 1,
                          len > 32 ? 32 : len, start, GF_CONVOLVE_MAX_WEIGHT,
                          GF_CONVOLVE_MAX_WEIGHT);
        if (count == kw * kh)
            return gf_err(GF_EUSAGE, NULL, "%s: a %lldx%lld kernel takes %lld weights, not more",
                          what, kw, kh, kw * kh);
        p->weights[count++] = (int32_t)v;
        sum += v;
    }
    if (count != kw * kh)
        return gf_err(GF_EUSAGE, NULL, "%s: a %lldx%lld kernel takes %lld weights, not %d", what,
                      kw, kh, kw * kh, count);
    p->st.kw = (int)kw;
    p->st.kh = (int)kh;
    p->divisor = sum > 0 && sum <= GF_CONVOLVE_MAX_DIVISOR ? (int32_t)sum : 1;
    return 0;
}

/* KERNEL from @FILE: the file's text, at most MAX_FILE_BYTES. An unreadable
 * file is GF_ENOINPUT ("FILE: reason"). */
static int parse_file(gf_convolve_params *p, const char *path)
{
    char what[96], *text;
    FILE *f = fopen(path, "rb");
    size_t n;
    int rc;

    if (!f)
        return gf_err(GF_ENOINPUT, path, "%s", strerror(errno));
    if (!(text = malloc(MAX_FILE_BYTES + 1))) {
        fclose(f);
        return gf_err(GF_EINTERNAL, NULL, "convolve: out of memory");
    }
    n = fread(text, 1, MAX_FILE_BYTES + 1, f);
    if (ferror(f)) {
        rc = gf_err(GF_ENOINPUT, path, "%s", strerror(errno ? errno : EIO));
    } else if (n > MAX_FILE_BYTES) {
        rc = gf_err(GF_EUSAGE, NULL, "--convolve @%.64s: over %d bytes, not a kernel", path,
                    MAX_FILE_BYTES);
    } else if (memchr(text, 0, n)) {
        rc = gf_err(GF_EUSAGE, NULL, "--convolve @%.64s: a NUL byte, not a kernel's text", path);
    } else {
        text[n] = 0;
        snprintf(what, sizeof what, "--convolve @%.64s", path);
        rc = gf_convolve_parse_kernel(what, text, p);
    }
    free(text);
    fclose(f);
    return rc;
}

static int parse_convolve(gf_stage *s, const char *arg)
{
    gf_convolve_params *p = GF_PARAMS(s, gf_convolve_params);

    p->st.border.mode = GF_BORDER_REPLICATE;
    p->st.border.value = 0;
    p->bias = 0;
    return arg[0] == '@' ? parse_file(p, arg + 1) : gf_convolve_parse_kernel("--convolve", arg, p);
}

extern const gf_stage_ops gf_stage_convolve;

static int parse_divisor(gf_stage *s, const char *arg)
{
    long long v;

    if (whole_int(arg, GF_CONVOLVE_MAX_DIVISOR, &v) || v == 0)
        return gf_err(GF_EUSAGE, NULL,
                      "--divisor: N must be a nonzero integer in -%d..%d, not '%.32s'",
                      GF_CONVOLVE_MAX_DIVISOR, GF_CONVOLVE_MAX_DIVISOR, arg);
    if (s->ops != &gf_stage_convolve)
        return 1;
    GF_PARAMS(s, gf_convolve_params)->divisor = (int32_t)v;
    return 0;
}

static int parse_bias(gf_stage *s, const char *arg)
{
    long long v;

    if (whole_int(arg, GF_CONVOLVE_MAX_BIAS, &v))
        return gf_err(GF_EUSAGE, NULL, "--bias: B must be an integer in -%d..%d, not '%.32s'",
                      GF_CONVOLVE_MAX_BIAS, GF_CONVOLVE_MAX_BIAS, arg);
    if (s->ops != &gf_stage_convolve)
        return 1;
    GF_PARAMS(s, gf_convolve_params)->bias = (int32_t)v;
    return 0;
}

/* Test configurations, each with random weights (gf_rand) in -8..8 or, for
 * the "big" ones, -65535..65535 (64-bit sums on 16-bit images, and on every
 * layout at 15x15), each border mode in turn (a random constant within 8
 * bits); the divisor the default (sum, or 1), random positive (1..64, or up
 * to 10^6 for big weights) or random negative, with a random bias, or the
 * largest (above any sum: every quotient 0, the bias alone). The 15x15
 * ones, whose gold is slow, come last. Bench: 5x5 in -8..8, replicate, the
 * default divisor. */
enum { DIV_DEFAULT, DIV_POS, DIV_NEG, DIV_HUGE };
static const struct {
    int kw, kh, big, div;
} configs[] = {
    {5, 5, 0, DIV_DEFAULT}, {5, 5, 0, DIV_POS}, {5, 5, 0, DIV_NEG},  {3, 3, 0, DIV_DEFAULT},
    {3, 3, 0, DIV_POS},     {3, 3, 0, DIV_NEG}, {1, 7, 0, DIV_POS},  {7, 1, 0, DIV_NEG},
    {9, 3, 0, DIV_HUGE},    {3, 3, 1, DIV_POS}, {3, 3, 1, DIV_NEG},  {1, 1, 0, DIV_DEFAULT},
    {15, 15, 0, DIV_POS},   {15, 15, 1, DIV_NEG}, {15, 15, 1, DIV_DEFAULT},
};
#define CHEAP_CONFIGS 12 /* those before the 15x15 ones */

static int convolve_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    gf_convolve_params *p = GF_PARAMS(s, gf_convolve_params);
    int64_t sum = 0;

    if (i >= (bench ? 1 : (int)(sizeof configs / sizeof configs[0])))
        return 0;
    p->st.kw = configs[i].kw;
    p->st.kh = configs[i].kh;
    p->st.border.mode = modes[i % 3];
    p->st.border.value = modes[i % 3] == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    for (int k = 0; k < p->st.kw * p->st.kh; k++) {
        p->weights[k] = configs[i].big ? (int32_t)(gf_rand(rng) % 131071) - 65535
                                       : (int32_t)(gf_rand(rng) % 17) - 8;
        sum += p->weights[k];
    }
    p->divisor = sum > 0 && sum <= GF_CONVOLVE_MAX_DIVISOR ? (int32_t)sum : 1;
    p->bias = 0;
    if (configs[i].div == DIV_POS || configs[i].div == DIV_NEG) {
        p->divisor = 1 + (int32_t)(gf_rand(rng) % (configs[i].big ? 1000000 : 64));
        p->divisor = configs[i].div == DIV_NEG ? -p->divisor : p->divisor;
        p->bias = (int32_t)(gf_rand(rng) % 513) - (configs[i].div == DIV_NEG ? 0 : 256);
    } else if (configs[i].div == DIV_HUGE) {
        p->divisor = GF_CONVOLVE_MAX_DIVISOR;
        p->bias = (int32_t)(gf_rand(rng) % 256);
    }
    return 1;
}

static const gf_stage_opt convolve_opts[] = {
    {"convolve", "KERNEL",
     "correlation of each channel with an integer kernel (not flipped, as cv2.filter2D): "
     "KERNEL is WxH:V,V,... (W, H odd, 1-15; W*H weights -65535..65535, row by row, "
     "separated by commas and/or spaces) or @FILE holding the same; each sample is "
     "round(sum / divisor) + bias, ties away from zero, clamped to the samples' range",
     GF_OPT_ADD, parse_convolve},
    {"divisor", "N",
     "the divisor of the --convolve stages after it: nonzero, -2147483647..2147483647 "
     "(default: the sum of the weights if positive, else 1)",
     GF_OPT_MODIFIER, parse_divisor},
    {"bias", "B",
     "added after the division by the --convolve stages after it: -2147483647..2147483647 "
     "(default 0)",
     GF_OPT_MODIFIER, parse_bias},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant convolve_variants[] = {
    {"global", GF_CUDA(gf_convolve_global_cuda)},
    {"shared", GF_CUDA(gf_convolve_shared_cuda)},
    {"constant", GF_CUDA(gf_convolve_constant_cuda)},
    {"texture", GF_CUDA(gf_convolve_texture_cuda)},
    {"packed", GF_CUDA(gf_convolve_packed_cuda)},
    {NULL, NULL},
};

static const gf_default convolve_defaults[] = {
    /* the fastest on the H100 at 5x5 on gray 8-bit (0.21 ms against
     * constant's 0.37, 2026-12-07); it runs `constant`, the fastest of the
     * others, on every other layout and kernel (docs/benchmarks.md) */
    {0, 0, "packed"},
    {0, 0, NULL},
};

/* cpu_cost: 5x5 on one thread, 5120x2880 gray and RGB 8-bit and gray
 * 16-bit: about 1.0 ns a byte (it grows with the taps) */
const gf_stage_ops gf_stage_convolve = {
    .cpu_cost = 1.0,
    .name = "convolve",
    .group = "convolve",
    .opts = convolve_opts,
    .variants = convolve_variants,
    .defaults = convolve_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = gf_stencil_check,
    .unchanged = convolve_unchanged,
    .label = convolve_label,
    .gold = convolve_gold,
    .cpu = convolve_cpu,
    .cpu_in_place = convolve_in_place,
    .config = convolve_config,
    .large_configs = CHEAP_CONFIGS,
};
