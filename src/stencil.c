/* stencil.c - the neighbourhood-stage framework's CPU half (stencil.h). */
#include "stencil.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Ring rows start on cache lines, so that the rules' loops vectorise on
 * aligned rows. */
#define ROW_ALIGN 64
/* Bands of rows a thread, dealt out dynamically (each band repeats its
 * window's halo rows: a few per cent of the rows at 4). */
#define BANDS_PER_THREAD 4
/* The input rows are asked for PREFETCH_AHEAD rows before the ring takes
 * them, a cache line (64 bytes) at a time. */
#define PREFETCH_AHEAD 2
#define CACHE_LINE 64

int gf_stencil_parse_border(gf_stage *s, const char *arg)
{
    gf_border *b = &GF_PARAMS(s, gf_stencil_params)->border;

    b->value = 0;
    if (!strcmp(arg, "replicate"))
        b->mode = GF_BORDER_REPLICATE;
    else if (!strcmp(arg, "reflect101"))
        b->mode = GF_BORDER_REFLECT101;
    else if (!strcmp(arg, "constant"))
        b->mode = GF_BORDER_CONSTANT;
    else if (!strncmp(arg, "constant=", 9)) {
        b->mode = GF_BORDER_CONSTANT;
        return gf_parse_int("--border constant", arg + 9, 0, 65535, &b->value);
    } else
        return gf_err(GF_EUSAGE, NULL,
                      "--border: '%s' is not replicate, reflect101 or constant[=V]", arg);
    return 0;
}

int gf_stencil_parse_window(const char *opt, const char *arg, int lo, int hi, int *kw, int *kh)
{
    int v[2];
    const char *x = strchr(arg, 'x');

    if (x ? gf_parse_ints(opt, "WxH", arg, 'x', 2, 0, 65535, v) == 0
          : gf_parse_int(opt, arg, 0, 65535, &v[0]) == 0) {
        if (!x)
            v[1] = v[0];
        if (v[0] >= lo && v[0] <= hi && v[1] >= lo && v[1] <= hi && v[0] % 2 && v[1] % 2) {
            *kw = v[0];
            *kh = v[1];
            return 0;
        }
    }
    return gf_err(GF_EUSAGE, NULL, "%s: size must be K or WxH, odd, %d..%d, not '%s'", opt, lo,
                  hi, arg);
}

int gf_stencil_check(const gf_stage *s, const gf_shape *in)
{
    const gf_border *b = &GF_CPARAMS(s, gf_stencil_params)->border;

    if (b->mode == GF_BORDER_CONSTANT && (unsigned)b->value > gf_sample_max(in->bits))
        return gf_err(GF_EUSAGE, NULL,
                      "--border constant=%d is above %u, the largest sample of a %s image",
                      b->value, gf_sample_max(in->bits), gf_layout_words(in->channels, in->bits));
    return 0;
}

gf_stencil_job gf_stencil_job_of(const gf_stage *s, const void *ctx, const gf_image *in)
{
    const gf_stencil_params *p = GF_CPARAMS(s, gf_stencil_params);
    gf_stencil_job j = {s,     ctx,   in->width, in->height, in->channels,        in->bits,
                        p->kw, p->kh, p->border, (size_t)in->width * (size_t)in->channels};
    return j;
}

static size_t round_up(size_t n)
{
    return (n + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;
}

/* One thread's band of output rows [y0, y1) and what it holds. */
typedef struct band {
    int y0, y1;
    unsigned char *mem;   /* everything below, one allocation */
    unsigned char *ring;  /* kh + 1 ring rows of ring_row bytes */
    unsigned char *pad;   /* a padded input row, when the stage has a row rule */
    unsigned char *acc;   /* the column rule's scratch row */
    unsigned char *konst; /* a row of the constant border's value (n samples) */
    unsigned char **saved; /* per window row y0-ry .. y1+ry-1: its copy, or NULL */
    unsigned char *copies; /* the copies */
} band;

typedef struct driver {
    const gf_stencil_cpu *r;
    const gf_stencil_job *j;
    const gf_image *in;
    gf_image *out;
    gf_border b;
    int rx, ry, in_place;
    size_t sb, row_bytes, pad_bytes, ring_row;
    int *xmap; /* the source pixel of each of the 2 rx border pixels, -1 for the constant */
} driver;

/* Rows the band must copy before any band writes: those of other bands, and
 * those its own output reaches before it reads them (the bottom edge's
 * reflections). */
static int must_save(const driver *d, const band *bd, int wy, int src)
{
    return d->in_place && src >= 0 && (src < bd->y0 || src >= bd->y1 || src < wy - d->ry);
}

static int band_alloc(const driver *d, band *bd)
{
    const int nwin = bd->y1 - bd->y0 + 2 * d->ry;
    size_t nsave = 0, size, off = 0;

    for (int i = 0; i < nwin; i++) {
        const int wy = bd->y0 - d->ry + i;
        nsave += must_save(d, bd, wy, gf_border_index(wy, d->j->height, d->b.mode));
    }
    size = (size_t)(d->j->kh + 1) * d->ring_row + round_up(d->pad_bytes) +
           round_up(d->j->n * d->r->acc_bytes) + round_up(d->row_bytes) +
           round_up((size_t)nwin * sizeof(unsigned char *)) + nsave * round_up(d->row_bytes);
    bd->mem = aligned_alloc(ROW_ALIGN, round_up(size));
    if (!bd->mem)
        return -1;
    bd->ring = bd->mem;
    off = (size_t)(d->j->kh + 1) * d->ring_row;
    bd->pad = bd->mem + off;
    off += round_up(d->pad_bytes);
    bd->acc = bd->mem + off;
    off += round_up(d->j->n * d->r->acc_bytes);
    bd->konst = bd->mem + off;
    off += round_up(d->row_bytes);
    bd->saved = (unsigned char **)(void *)(bd->mem + off);
    off += round_up((size_t)nwin * sizeof(unsigned char *));
    bd->copies = bd->mem + off;
    for (size_t i = 0; i < d->j->n; i++)
        if (d->sb == 1)
            bd->konst[i] = (unsigned char)d->b.value;
        else
            ((uint16_t *)(void *)bd->konst)[i] = (uint16_t)d->b.value;
    return 0;
}

/* Copies the rows must_save names (before the barrier). */
static void band_save(const driver *d, band *bd)
{
    const int nwin = bd->y1 - bd->y0 + 2 * d->ry;
    unsigned char *next = bd->copies;

    for (int i = 0; i < nwin; i++) {
        const int wy = bd->y0 - d->ry + i, src = gf_border_index(wy, d->j->height, d->b.mode);
        bd->saved[i] = NULL;
        if (must_save(d, bd, wy, src)) {
            memcpy(next, d->in->data + (size_t)src * d->in->stride, d->row_bytes);
            bd->saved[i] = next;
            next += round_up(d->row_bytes);
        }
    }
}

/* Window row wy (any row) padded with rx border pixels each side into dst. */
static void pad_row(const driver *d, const band *bd, int wy, unsigned char *dst)
{
    const int src = gf_border_index(wy, d->j->height, d->b.mode);
    const size_t px = (size_t)d->j->channels * d->sb, left = (size_t)d->rx * px;
    const unsigned char *row = src < 0 ? bd->konst
                               : bd->saved[wy - (bd->y0 - d->ry)]
                                   ? bd->saved[wy - (bd->y0 - d->ry)]
                                   : d->in->data + (size_t)src * d->in->stride;

    memcpy(dst + left, row, d->row_bytes);
    for (int i = 0; i < 2 * d->rx; i++) {
        unsigned char *to = dst + (i < d->rx ? (size_t)i * px : left + d->row_bytes +
                                                                    (size_t)(i - d->rx) * px);
        if (d->xmap[i] < 0 || src < 0)
            memcpy(to, bd->konst, px);
        else
            memcpy(to, row + (size_t)d->xmap[i] * px, px);
    }
}

/* Asks the caches for window row wy's input (no effect outside the image):
 * issued rows ahead, its memory reads overlap the rules' work on the rows
 * before, where the copy into the ring would wait for them. Inlined: GCC
 * finds a function of prefetches alone free of effects and drops its
 * calls. */
static inline __attribute__((always_inline)) void prefetch_row(const driver *d, const band *bd,
                                                               int wy)
{
    const int src = gf_border_index(wy, d->j->height, d->b.mode);
    const unsigned char *row;

    if (src < 0 || wy >= bd->y1 + d->ry || bd->saved[wy - (bd->y0 - d->ry)])
        return;
    row = d->in->data + (size_t)src * d->in->stride;
    for (size_t i = 0; i < d->row_bytes; i += CACHE_LINE)
        __builtin_prefetch(row + i, 0, 2);
}

/* The band's output rows, each from the kh ring rows of its window. */
static void band_run(const driver *d, band *bd)
{
    const int kh = d->j->kh, nslots = kh + 1;
    const void *win[GF_STENCIL_MAX_SIDE];
    int first = 1;

    for (int wy = bd->y0 - d->ry; wy < bd->y1 + d->ry; wy++) {
        const int slot = (wy - (bd->y0 - d->ry)) % nslots;
        unsigned char *ring = bd->ring + (size_t)slot * d->ring_row;
        prefetch_row(d, bd, wy + PREFETCH_AHEAD);
        if (d->r->row) {
            pad_row(d, bd, wy, bd->pad);
            d->r->row(d->j, bd->pad, ring);
        } else {
            pad_row(d, bd, wy, ring);
        }
        const int y = wy - d->ry;
        if (y < bd->y0)
            continue;
        const int top = y - d->ry - (bd->y0 - d->ry); /* the window's first slot, unwrapped */
        for (int k = 0; k < kh; k++)
            win[k] = bd->ring + (size_t)((top + k) % nslots) * d->ring_row;
        const void *gone = first ? NULL : bd->ring + (size_t)((top + nslots - 1) % nslots) * d->ring_row;
        d->r->col(d->j, win, gone, d->in->data + (size_t)y * d->in->stride,
                  d->out->data + (size_t)y * d->out->stride, bd->acc, first);
        first = 0;
    }
}

int gf_stencil_cpu_run(const gf_stencil_cpu *r, const gf_stencil_job *j, const gf_image *in,
                       gf_image *out)
{
    driver d = {r, j, in, out, j->border, j->kw / 2, j->kh / 2, out->data == in->data, 0, 0, 0,
                0, NULL};
    int failed = 0, threads = 1, nbands;
    band *bands;

    if (j->kw < 1 || j->kh < 1 || j->kw % 2 == 0 || j->kh % 2 == 0 ||
        j->kh > GF_STENCIL_MAX_SIDE || j->kw > GF_STENCIL_MAX_SIDE || out->width != in->width ||
        out->height != in->height || out->channels != in->channels || out->bits != in->bits ||
        j->width != in->width || j->height != in->height || j->channels != in->channels ||
        j->bits != in->bits || (d.in_place && out->stride != in->stride))
        return gf_err(GF_EINTERNAL, NULL, "stencil: bad arguments (%dx%d window)", j->kw, j->kh);
    d.sb = (size_t)in->bits / 8;
    d.row_bytes = j->n * d.sb;
    d.pad_bytes = (size_t)(in->width + 2 * d.rx) * (size_t)in->channels * d.sb;
    d.ring_row = round_up(r->row ? j->n * r->ring_bytes : d.pad_bytes);
    d.xmap = malloc(sizeof *d.xmap * (size_t)(2 * d.rx + 1));
    if (!d.xmap)
        return gf_err(GF_EINTERNAL, NULL, "stencil: out of memory");
    for (int i = 0; i < 2 * d.rx; i++)
        d.xmap[i] = gf_border_index(i < d.rx ? i - d.rx : in->width + i - d.rx, in->width,
                                    d.b.mode);
#ifdef _OPENMP
    if (GF_PARALLEL(in->width, in->height))
        threads = omp_get_max_threads();
#endif
    /* More bands than threads, taken as threads come free: a core that
     * another process holds then costs its share of the work, not the
     * whole run's */
    nbands = threads > 1 ? threads * BANDS_PER_THREAD : 1;
    if (nbands > in->height)
        nbands = in->height;
    if (!(bands = calloc((size_t)nbands, sizeof *bands))) {
        free(d.xmap);
        return gf_err(GF_EINTERNAL, NULL, "stencil: out of memory");
    }
    for (int i = 0; i < nbands; i++) {
        bands[i].y0 = (int)((long)in->height * i / nbands);
        bands[i].y1 = (int)((long)in->height * (i + 1) / nbands);
    }
    /* every band's borrowed rows are copied (in place) before any band
     * writes; here, before the threads start, so that they meet once, at
     * the end (a thread that another process holds off the CPU then delays
     * the run once, not at every barrier) */
    for (int i = 0; i < nbands && !failed; i++) {
        if (band_alloc(&d, &bands[i]))
            failed = 1;
        else
            band_save(&d, &bands[i]);
    }
    if (!failed) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int i = 0; i < nbands; i++)
            band_run(&d, &bands[i]);
    }
    for (int i = 0; i < nbands; i++)
        free(bands[i].mem);
    free(bands);
    free(d.xmap);
    if (failed)
        return gf_err(GF_EINTERNAL, NULL, "stencil: out of memory");
    return 0;
}
