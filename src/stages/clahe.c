/* clahe.c - contrast-limited adaptive histogram equalisation: --clahe
 * [CLIP][,WxH], OpenCV's CLAHE on each colour channel (the rule: clahe.h). */
#include "clahe.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gaussian.h" /* gf_gauss_parse_decimal */

_Static_assert(sizeof(gf_clahe_params) <= GF_STAGE_PARAMS, "clahe params");

static int check_args(const gf_image *in, const gf_image *out, double clip, int gw, int gh)
{
    if (out->width != in->width || out->height != in->height || out->channels != in->channels ||
        out->bits != in->bits || !(clip >= 0 && clip <= GF_CLAHE_MAX_CLIP) || gw < 1 ||
        gw > GF_CLAHE_MAX_GRID || gh < 1 || gh > GF_CLAHE_MAX_GRID)
        return gf_err(GF_EINTERNAL, NULL, "clahe: bad arguments (clip %g, grid %dx%d)", clip, gw,
                      gh);
    return 0;
}

/* Sample (x, y) of the padded image's channel c. */
static unsigned padded(const gf_image *in, int x, int y, int c)
{
    return gf_sample(in, gf_border_index(x, in->width, GF_BORDER_REFLECT101),
                     gf_border_index(y, in->height, GF_BORDER_REFLECT101), c);
}

/* A tile's table from its histogram (bins counts, changed here), by
 * OpenCV's loops: cut, the batch to every bin, the residual one at a time,
 * then the running sum scaled. */
static void table_gold(int64_t *hist, const gf_clahe_geom *g, unsigned max, uint16_t *table)
{
    int64_t sum = 0;

    if (g->limit > 0) {
        int64_t clipped = 0, batch, residual;
        for (int i = 0; i < g->bins; i++)
            if (hist[i] > g->limit) {
                clipped += hist[i] - g->limit;
                hist[i] = g->limit;
            }
        batch = clipped / g->bins;
        residual = clipped - batch * g->bins;
        for (int i = 0; i < g->bins; i++)
            hist[i] += batch;
        if (residual != 0) {
            const int64_t step = g->bins / residual > 1 ? g->bins / residual : 1;
            for (int64_t i = 0; i < g->bins && residual > 0; i += step, residual--)
                hist[i]++;
        }
    }
    for (int i = 0; i < g->bins; i++) {
        sum += hist[i];
        table[i] = (uint16_t)gf_clahe_value(sum, g->scale, max);
    }
}

int gf_clahe_gold(const gf_image *in, gf_image *out, double clip, int gw, int gh)
{
    const int w = in->width, h = in->height;
    const unsigned max = gf_sample_max(in->bits);
    const gf_clahe_geom g = gf_clahe_geom_of(w, h, in->bits, clip, gw, gh);
    int64_t *hist = NULL;
    uint16_t *tables = NULL; /* tile (tx, ty)'s at (ty * gw + tx) * bins */
    int rc = check_args(in, out, clip, gw, gh);

    if (rc)
        return rc;
    hist = malloc((size_t)g.bins * sizeof *hist);
    tables = malloc((size_t)gw * (size_t)gh * (size_t)g.bins * sizeof *tables);
    if (!hist || !tables) {
        rc = gf_err(GF_EINTERNAL, NULL, "clahe: out of memory");
        goto out;
    }
    for (int c = 0; c < in->channels; c++) {
        if (c >= gf_lut_colours(in->channels)) { /* alpha */
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    gf_sample_set(out, x, y, c, gf_sample(in, x, y, c));
            continue;
        }
        for (int ty = 0; ty < gh; ty++)
            for (int tx = 0; tx < gw; tx++) {
                memset(hist, 0, (size_t)g.bins * sizeof *hist);
                for (int y = ty * g.th; y < (ty + 1) * g.th; y++)
                    for (int x = tx * g.tw; x < (tx + 1) * g.tw; x++)
                        hist[padded(in, x, y, c)]++;
                table_gold(hist, &g, max, tables + (size_t)(ty * gw + tx) * (size_t)g.bins);
            }
        for (int y = 0; y < h; y++) {
            int t1y, t2y;
            float ya;
            gf_clahe_axis(y, g.inv_th, gh, &t1y, &t2y, &ya);
            for (int x = 0; x < w; x++) {
                const unsigned v = gf_sample(in, x, y, c);
                int t1x, t2x;
                float xa;
                gf_clahe_axis(x, g.inv_tw, gw, &t1x, &t2x, &xa);
#define L(ty, tx) (float)tables[(size_t)((ty) * gw + (tx)) * (size_t)g.bins + v]
                const float r = gf_clahe_mix(L(t1y, t1x), L(t1y, t2x), L(t2y, t1x), L(t2y, t2x),
                                             xa, 1.0f - xa, ya, 1.0f - ya);
#undef L
                gf_sample_set(out, x, y, c, gf_clahe_round(r, max));
            }
        }
    }
out:
    free(hist);
    free(tables);
    return rc;
}

/* ---- The CPU path. ----
 * Tables: a tile at a time, in parallel. The tile's histogram of its rows
 * of the padded image (the row by reflect101; the columns inside the image
 * straight, the padding's by reflect101), then over the bins, in place: the
 * excess over the limit; the running sums of the cut bins with the batch
 * (sequential); the residual's ones added to the sums after each of its
 * bins (runs of bins that get one more each); the sums scaled and rounded
 * (vectorised). Counts and sums fit 32 bits: a tile is at most 65535 x 65535
 * pixels (a 1x1 grid never pads). */

/* The excess of the bins over the limit. */
GF_CLONES static int64_t excess(const uint32_t *hist, int bins, uint32_t limit)
{
    int64_t e = 0;
    for (int i = 0; i < bins; i++)
        e += hist[i] > limit ? hist[i] - limit : 0;
    return e;
}

/* The running sums at sum[0 .. n) scaled into t8 (8-bit) or t16 (16-bit). */
GF_CLONES static void scale_sums(const uint32_t *restrict sum, int n, float scale, unsigned max,
                                 unsigned char *restrict t8, uint16_t *restrict t16)
{
    if (t8)
        for (int i = 0; i < n; i++)
            t8[i] = (unsigned char)gf_clahe_round((float)sum[i] * scale, max);
    else
        for (int i = 0; i < n; i++)
            t16[i] = (uint16_t)gf_clahe_round((float)sum[i] * scale, max);
}

/* The table of a tile's histogram (bins counts, made its running sums
 * here), as table_gold makes it, into t8 (8-bit) or t16 (16-bit). */
GF_CLONES static void table_fast(uint32_t *hist, const gf_clahe_geom *g, unsigned char *t8,
                                 uint16_t *t16)
{
    const int bins = g->bins;
    const uint32_t limit = (uint32_t)g->limit;
    const int64_t e = limit ? excess(hist, bins, limit) : 0;
    const uint32_t batch = (uint32_t)(e / bins), r = (uint32_t)(e % bins);
    const uint32_t step = (uint32_t)gf_clahe_step(bins, r);
    uint32_t sum = 0;

    if (limit)
        for (int i = 0; i < bins; i++) {
            sum += (hist[i] > limit ? limit : hist[i]) + batch;
            hist[i] = sum;
        }
    else
        for (int i = 0; i < bins; i++)
            hist[i] = sum += hist[i];
    /* bins 0, s, 2s, ... (r of them) one more each: from bin k s on, the
     * sums have k + 1 more */
    for (uint32_t k = 0; k < r; k++)
        for (uint32_t i = k * step, end = k + 1 < r ? (k + 1) * step : (uint32_t)bins; i < end; i++)
            hist[i] += k + 1;
    scale_sums(hist, bins, g->scale, (unsigned)bins - 1, t8, t16);
}

/* The columns [x0, x1) of the padded image that lie inside it, [x0, xe),
 * and in the padding, [xp, x1). */
static void tile_columns(int w, int x0, int x1, int *xe, int *xp)
{
    *xe = x1 < w ? x1 : w;
    if (*xe < x0)
        *xe = x0;
    *xp = x0 > w ? x0 : w;
}

/* 8-bit gray: the bytes of a row into four sub-histograms in turn, so that
 * runs of one value do not wait on their own previous increment. */
static void count_gray8(const unsigned char *p, int n, uint32_t (*part)[256])
{
    int x = 0;
    for (; x + 4 <= n; x += 4) {
        part[0][p[x]]++;
        part[1][p[x + 1]]++;
        part[2][p[x + 2]]++;
        part[3][p[x + 3]]++;
    }
    for (; x < n; x++)
        part[0][p[x]]++;
}

/* Tile (tx, ty)'s histograms of the nc colour channels of an 8-bit image
 * into hist[k][v]. */
static void count_tile8(const gf_image *in, const gf_clahe_geom *g, int tx, int ty, int nc,
                        uint32_t (*hist)[256])
{
    const int w = in->width, ch = in->channels, x0 = tx * g->tw, x1 = x0 + g->tw;
    uint32_t part[4][256];
    int xe, xp;

    tile_columns(w, x0, x1, &xe, &xp);
    memset(hist, 0, (size_t)nc * sizeof *hist);
    if (ch == 1)
        memset(part, 0, sizeof part);
    for (int y = ty * g->th; y < (ty + 1) * g->th; y++) {
        const unsigned char *row =
            in->data + (size_t)gf_border_index(y, in->height, GF_BORDER_REFLECT101) * in->stride;
        if (ch == 1)
            count_gray8(row + x0, xe - x0, part);
        else
            for (int x = x0; x < xe; x++)
                for (int k = 0; k < nc; k++)
                    hist[k][row[(size_t)x * (size_t)ch + (size_t)k]]++;
        for (int x = xp; x < x1; x++) {
            const size_t sx = (size_t)gf_border_index(x, w, GF_BORDER_REFLECT101);
            for (int k = 0; k < nc; k++)
                hist[k][row[sx * (size_t)ch + (size_t)k]]++;
        }
    }
    if (ch == 1)
        for (int v = 0; v < 256; v++)
            hist[0][v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
}

/* Tile (tx, ty)'s histogram of channel c of a 16-bit image into hist
 * (65536 counts). */
static void count_tile16(const gf_image *in, const gf_clahe_geom *g, int tx, int ty, int c,
                         uint32_t *hist)
{
    const int w = in->width, ch = in->channels, x0 = tx * g->tw, x1 = x0 + g->tw;
    int xe, xp;

    tile_columns(w, x0, x1, &xe, &xp);
    memset(hist, 0, 65536 * sizeof *hist);
    for (int y = ty * g->th; y < (ty + 1) * g->th; y++) {
        const uint16_t *row = (const uint16_t *)(const void *)(in->data +
            (size_t)gf_border_index(y, in->height, GF_BORDER_REFLECT101) * in->stride);
        for (int x = x0; x < xe; x++)
            hist[row[(size_t)x * (size_t)ch + (size_t)c]]++;
        for (int x = xp; x < x1; x++)
            hist[row[(size_t)gf_border_index(x, w, GF_BORDER_REFLECT101) * (size_t)ch +
                     (size_t)c]]++;
    }
}

/* Interpolation, 8 bits. A row's samples are taken alike, whatever the
 * layout: the four tables' values of sample value v are one 32-bit word,
 * quads[(sx * channels + k) * 256 + v] for column segment sx
 * (gf_clahe_segment) and channel k, L11 in the low byte; alpha's four values are v itself, which
 * the interpolation gives back exactly (rounding errors of a few units in
 * the 24th bit of v are far from 0.5). Each sample's segment offset and
 * weights come from arrays made once (qoff, xa, xa1, a value a sample); the
 * loop gathers and vectorises. */

/* quads for the rows between tile rows t1y and t2y: (W + 1) segments x
 * channels x 256 words, from tables[(tile * nc + k) * 256 + v]. */
static void make_quads(const unsigned char *tables, int gw, int ch, int nc, int t1y, int t2y,
                       uint32_t *quads)
{
    for (int sx = 0; sx <= gw; sx++) {
        int t1x, t2x;
        gf_clahe_segment_tiles(sx, gw, &t1x, &t2x);
        for (int k = 0; k < ch; k++) {
            uint32_t *q = quads + ((size_t)sx * (size_t)ch + (size_t)k) * 256;
            if (k >= nc) {
                for (int v = 0; v < 256; v++)
                    q[v] = (uint32_t)v * 0x01010101u;
                continue;
            }
#define T(ty, tx) (tables + ((size_t)((ty) * gw + (tx)) * (size_t)nc + (size_t)k) * 256)
            const unsigned char *l11 = T(t1y, t1x), *l12 = T(t1y, t2x), *l21 = T(t2y, t1x),
                                *l22 = T(t2y, t2x);
#undef T
            for (int v = 0; v < 256; v++)
                q[v] = (uint32_t)l11[v] | (uint32_t)l12[v] << 8 | (uint32_t)l21[v] << 16 |
                       (uint32_t)l22[v] << 24;
        }
    }
}

GF_CLONES static void interp_row8(const unsigned char *restrict src, unsigned char *restrict dst,
                                  size_t n, const uint32_t *restrict quads,
                                  const int32_t *restrict qoff, const float *restrict xa,
                                  const float *restrict xa1, float ya, float ya1)
{
    for (size_t j = 0; j < n; j++) {
        const uint32_t q = quads[qoff[j] + src[j]];
        const float r = gf_clahe_mix((float)(int)(q & 255), (float)(int)(q >> 8 & 255),
                                     (float)(int)(q >> 16 & 255), (float)(int)(q >> 24), xa[j],
                                     xa1[j], ya, ya1);
        dst[j] = (unsigned char)gf_clahe_round(r, 255);
    }
}

/* Every tile's tables of the nc colour channels (8-bit) into tables, in
 * parallel. */
static void tables8(const gf_image *in, const gf_clahe_geom *g, int nc, unsigned char *tables)
{
    const int tiles = g->gw * g->gh;

#pragma omp parallel for schedule(dynamic) if (GF_PARALLEL(in->width, in->height))
    for (int t = 0; t < tiles; t++) {
        uint32_t hist[GF_MAX_CHANNELS][256];
        count_tile8(in, g, t % g->gw, t / g->gw, nc, hist);
        for (int k = 0; k < nc; k++)
            table_fast(hist[k], g, tables + ((size_t)t * (size_t)nc + (size_t)k) * 256, NULL);
    }
}

static int clahe_cpu8(const gf_image *in, gf_image *out, const gf_clahe_geom *g)
{
    const int w = in->width, h = in->height, ch = in->channels, nc = gf_lut_colours(ch);
    const size_t n = (size_t)w * (size_t)ch, nq = (size_t)(g->gw + 1) * (size_t)ch * 256;
    unsigned char *tables = malloc((size_t)g->gw * (size_t)g->gh * (size_t)nc * 256);
    int32_t *qoff = malloc(n * sizeof *qoff);
    float *xa = malloc(n * sizeof *xa), *xa1 = malloc(n * sizeof *xa1);
    int failed = 0;

    if (!tables || !qoff || !xa || !xa1) {
        failed = 1;
        goto out;
    }
    tables8(in, g, nc, tables);
    for (int x = 0; x < w; x++) {
        int t1, t2;
        float a;
        gf_clahe_axis(x, g->inv_tw, g->gw, &t1, &t2, &a);
        for (int k = 0; k < ch; k++) {
            const size_t j = (size_t)x * (size_t)ch + (size_t)k;
            const size_t sx = (size_t)gf_clahe_segment(t1, t2, g->gw);
            qoff[j] = (int32_t)((sx * (size_t)ch + (size_t)k) * 256);
            xa[j] = a;
            xa1[j] = 1.0f - a;
        }
    }
#pragma omp parallel if (GF_PARALLEL(w, h)) reduction(| : failed)
    {
        uint32_t *quads = malloc(nq * sizeof *quads);
        /* in place, a row goes through a buffer (the loop's pointers are restrict) */
        unsigned char *buf = out->data == in->data ? malloc(n) : NULL;
        int have1 = -1, have2 = -1; /* the tile rows quads holds */
        if (!quads || (out->data == in->data && !buf))
            failed = 1;
        /* rows in chunks taken in turn: a thread held up (by another
         * process on its core) holds up no fixed share of them */
#pragma omp for schedule(dynamic, 16)
        for (int y = 0; y < h; y++) {
            int t1y, t2y;
            float ya;
            if (failed)
                continue;
            gf_clahe_axis(y, g->inv_th, g->gh, &t1y, &t2y, &ya);
            if (t1y != have1 || t2y != have2) {
                make_quads(tables, g->gw, ch, nc, t1y, t2y, quads);
                have1 = t1y, have2 = t2y;
            }
            const unsigned char *src = in->data + (size_t)y * in->stride;
            unsigned char *dst = out->data + (size_t)y * out->stride;
            interp_row8(src, buf ? buf : dst, n, quads, qoff, xa, xa1, ya, 1.0f - ya);
            if (buf)
                memcpy(dst, buf, n);
        }
        free(quads);
        free(buf);
    }
out:
    free(tables);
    free(qoff);
    free(xa);
    free(xa1);
    return failed ? gf_err(GF_EINTERNAL, NULL, "clahe: out of memory") : 0;
}

/* Interpolation, 16 bits: by segments, the rectangles of pixels between
 * four tile centres (gf_clahe_segment), in parallel. A segment's four tables are
 * first packed into one 64-bit word a value, L11 in the low 16 bits, so
 * that a sample reads one place of 512 KiB (which stays in the second-level
 * cache) instead of four of the tables' megabytes. Only the tiles of
 * segments that hold pixels get tables. */

/* The first pixel of each segment of an axis of n pixels and `tiles` tiles
 * (1 / tile size inv) into start[0 .. tiles + 1], start[tiles + 1] = n:
 * segment k is [start[k], start[k + 1]). */
static void segment_starts(int n, float inv, int tiles, int *start)
{
    int k = 0;

    start[0] = 0;
    for (int x = 0; x < n; x++) {
        int t1, t2;
        float a;
        gf_clahe_axis(x, inv, tiles, &t1, &t2, &a);
        for (const int s = gf_clahe_segment(t1, t2, tiles); k < s;)
            start[++k] = x;
    }
    while (k < tiles + 1)
        start[++k] = n;
}

/* A run of n samples of a segment's row (ch apart from src and dst, which
 * may be one) through its packed tables, column weights xa[0 .. n). */
GF_CLONES static void interp_run16(const uint16_t *src, uint16_t *dst, int n, int ch,
                                   const uint64_t *quads, const float *xa, float ya)
{
    for (int x = 0; x < n; x++) {
        const size_t j = (size_t)x * (size_t)ch;
        const uint64_t q = quads[src[j]];
        const float r = gf_clahe_mix((float)(int)(q & 0xffff), (float)(int)(q >> 16 & 0xffff),
                                     (float)(int)(q >> 32 & 0xffff), (float)(int)(q >> 48),
                                     xa[x], 1.0f - xa[x], ya, 1.0f - ya);
        dst[j] = (uint16_t)gf_clahe_round(r, 65535);
    }
}

/* Segment (sx, sy)'s tables packed (see above) from tables[tile * 65536 + v]. */
static void pack16(const uint16_t *tables, int gw, int gh, int sx, int sy, uint64_t *quads)
{
    int t1x, t2x, t1y, t2y;
    gf_clahe_segment_tiles(sx, gw, &t1x, &t2x);
    gf_clahe_segment_tiles(sy, gh, &t1y, &t2y);
    const uint16_t *l11 = tables + (size_t)(t1y * gw + t1x) * 65536,
                   *l12 = tables + (size_t)(t1y * gw + t2x) * 65536,
                   *l21 = tables + (size_t)(t2y * gw + t1x) * 65536,
                   *l22 = tables + (size_t)(t2y * gw + t2x) * 65536;

    for (int v = 0; v < 65536; v++)
        quads[v] = (uint64_t)l11[v] | (uint64_t)l12[v] << 16 | (uint64_t)l21[v] << 32 |
                   (uint64_t)l22[v] << 48;
}

/* 16 bits: a colour channel at a time, as its tables take W x H x 128 KiB. */
static int clahe_cpu16(const gf_image *in, gf_image *out, const gf_clahe_geom *g)
{
    const int w = in->width, h = in->height, ch = in->channels, gw = g->gw, gh = g->gh;
    const int tiles = gw * gh, segs = (gw + 1) * (gh + 1);
    uint16_t *tables = malloc((size_t)tiles * 65536 * sizeof *tables);
    float *xa = malloc((size_t)w * sizeof *xa);
    unsigned char *need = calloc((size_t)tiles, 1); /* tiles of segments with pixels */
    int xs[GF_CLAHE_MAX_GRID + 2], ys[GF_CLAHE_MAX_GRID + 2], failed = 0;

    if (!tables || !xa || !need) {
        failed = 1;
        goto out;
    }
    for (int x = 0; x < w; x++) {
        int t1, t2;
        gf_clahe_axis(x, g->inv_tw, gw, &t1, &t2, &xa[x]);
    }
    segment_starts(w, g->inv_tw, gw, xs);
    segment_starts(h, g->inv_th, gh, ys);
    for (int sy = 0; sy <= gh; sy++)
        for (int sx = 0; sx <= gw; sx++) {
            int t1x, t2x, t1y, t2y;
            if (xs[sx] == xs[sx + 1] || ys[sy] == ys[sy + 1])
                continue;
            gf_clahe_segment_tiles(sx, gw, &t1x, &t2x);
            gf_clahe_segment_tiles(sy, gh, &t1y, &t2y);
            need[t1y * gw + t1x] = need[t1y * gw + t2x] = 1;
            need[t2y * gw + t1x] = need[t2y * gw + t2x] = 1;
        }
    for (int c = 0; c < gf_lut_colours(ch) && !failed; c++) {
#pragma omp parallel if (GF_PARALLEL(w, h)) reduction(| : failed)
        {
            uint32_t *hist = malloc(65536 * sizeof *hist);
            uint64_t *quads = malloc(65536 * sizeof *quads);
            if (!hist || !quads)
                failed = 1;
#pragma omp for schedule(dynamic)
            for (int t = 0; t < tiles; t++) {
                if (!hist || !need[t])
                    continue;
                count_tile16(in, g, t % gw, t / gw, c, hist);
                table_fast(hist, g, NULL, tables + (size_t)t * 65536);
            }
            /* the implicit barrier: every table is made */
#pragma omp for schedule(dynamic)
            for (int s = 0; s < segs; s++) {
                const int sx = s % (gw + 1), sy = s / (gw + 1), x0 = xs[sx], n = xs[sx + 1] - x0;
                if (!quads || n <= 0 || ys[sy] >= ys[sy + 1])
                    continue;
                pack16(tables, gw, gh, sx, sy, quads);
                for (int y = ys[sy]; y < ys[sy + 1]; y++) {
                    int t1y, t2y;
                    float ya;
                    gf_clahe_axis(y, g->inv_th, gh, &t1y, &t2y, &ya);
                    interp_run16(
                        (const uint16_t *)(const void *)(in->data + (size_t)y * in->stride) +
                            (size_t)x0 * (size_t)ch + (size_t)c,
                        (uint16_t *)(void *)(out->data + (size_t)y * out->stride) +
                            (size_t)x0 * (size_t)ch + (size_t)c,
                        n, ch, quads, xa + x0, ya);
                }
            }
            free(hist);
            free(quads);
        }
    }
    if (!failed && out->data != in->data && gf_lut_colours(ch) < ch) /* alpha */
        for (int y = 0; y < h; y++) {
            const uint16_t *src = (const uint16_t *)(const void *)(in->data + (size_t)y * in->stride);
            uint16_t *dst = (uint16_t *)(void *)(out->data + (size_t)y * out->stride);
            for (int x = 0; x < w; x++)
                dst[(size_t)x * (size_t)ch + (size_t)ch - 1] =
                    src[(size_t)x * (size_t)ch + (size_t)ch - 1];
        }
out:
    free(tables);
    free(xa);
    free(need);
    return failed ? gf_err(GF_EINTERNAL, NULL, "clahe: out of memory") : 0;
}

int gf_clahe_cpu(const gf_image *in, gf_image *out, double clip, int gw, int gh)
{
    int rc = check_args(in, out, clip, gw, gh);
    gf_clahe_geom g;

    if (rc)
        return rc;
    g = gf_clahe_geom_of(in->width, in->height, in->bits, clip, gw, gh);
    return in->bits == 8 ? clahe_cpu8(in, out, &g) : clahe_cpu16(in, out, &g);
}

/* ---- The stage. ---- */

static int clahe_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_clahe_params *p = GF_CPARAMS(s, gf_clahe_params);
    return gf_clahe_gold(in, out, p->clip, p->gw, p->gh);
}

static int clahe_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_clahe_params *p = GF_CPARAMS(s, gf_clahe_params);
    return gf_clahe_cpu(in, out, p->clip, p->gw, p->gh);
}

/* Every pixel's output is its own sample through tables made first. */
static int clahe_in_place(const gf_stage *s, gf_image *img)
{
    return clahe_cpu(s, img, img);
}

static void clahe_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_clahe_params *p = GF_CPARAMS(s, gf_clahe_params);
    snprintf(buf, n, "clahe %g,%dx%d", p->clip, p->gw, p->gh);
}

/* The tables read the image once, the interpolation reads it again and
 * writes it. */
static double clahe_bytes(const gf_stage *s, const gf_shape *in)
{
    (void)s;
    return 3.0 * in->width * in->height * (double)GF_PIXEL_BYTES(in->channels, in->bits);
}

/* [CLIP][,WxH]; NULL (no value): CLIP 2, 8x8. */
static int parse_clahe(gf_stage *s, const char *arg)
{
    gf_clahe_params *p = GF_PARAMS(s, gf_clahe_params);
    const char *end = arg;
    int grid[2];

    p->clip = 2.0;
    p->gw = p->gh = 8;
    if (!arg)
        return 0;
    if (*arg != ',' &&
        (gf_gauss_parse_decimal(arg, &p->clip, &end) || !(p->clip <= GF_CLAHE_MAX_CLIP)))
        goto bad;
    if (!*end)
        return 0;
    if (*end != ',' || gf_parse_ints("--clahe", "WxH", end + 1, 'x', 2, 1, GF_CLAHE_MAX_GRID, grid))
        goto bad;
    p->gw = grid[0];
    p->gh = grid[1];
    return 0;
bad:
    return gf_err(GF_EUSAGE, NULL,
                  "--clahe: '%s' is not [CLIP][,WxH] (CLIP a number from 0 to %g, W and H tiles "
                  "from 1 to %d)",
                  arg, GF_CLAHE_MAX_CLIP, GF_CLAHE_MAX_GRID);
}

/* Configurations: the default; no clipping; one tile; a limit of 1; tall
 * and wide grids; a limit past every bin; tiles narrower than a GPU block
 * (whose segments do not fit its shared memory); a random one. Grids stay
 * small: 16-bit tables are 65536 bins a tile. Bench: the default. */
static int clahe_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const struct {
        double clip;
        int gw, gh;
    } fixed[] = {{2, 8, 8}, {0, 3, 5}, {40, 1, 1}, {0.01, 7, 2}, {4.5, 2, 9}, {1000, 5, 4},
                 {1, 13, 2}};
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    gf_clahe_params *p = GF_PARAMS(s, gf_clahe_params);

    if (i > (bench ? 0 : nfixed))
        return 0;
    if (i < nfixed) {
        p->clip = fixed[i].clip;
        p->gw = fixed[i].gw;
        p->gh = fixed[i].gh;
    } else {
        p->clip = (double)(gf_rand(rng) % 4001) / 400.0; /* 0 .. 10 */
        p->gw = 1 + (int)(gf_rand(rng) % 9);
        p->gh = 1 + (int)(gf_rand(rng) % 9);
    }
    return 1;
}

static const gf_stage_opt clahe_opts[] = {
    {"clahe", "[CLIP][,WxH]",
     "contrast-limited adaptive histogram equalisation of each colour channel, OpenCV's CLAHE "
     "(CLIP 0-1000, default 2, 0 no limit; W x H tiles, 1-64, default 8x8)",
     GF_OPT_ADD, parse_clahe},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant clahe_variants[] = {
    {"global", GF_CUDA(gf_clahe_global_cuda)},
    {"shared", GF_CUDA(gf_clahe_shared_cuda)},
    {NULL, NULL},
};

static const gf_default clahe_defaults[] = {
    {0, 0, "shared"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_clahe = {
    .cpu_cost = 3.0,
    .name = "clahe",
    .group = "clahe",
    .opts = clahe_opts,
    .variants = clahe_variants,
    .defaults = clahe_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .label = clahe_label,
    .floor_bytes = clahe_bytes,
    .gold = clahe_gold,
    .cpu = clahe_cpu,
    .cpu_in_place = clahe_in_place,
    .config = clahe_config,
};
