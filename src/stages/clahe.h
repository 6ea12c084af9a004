/* clahe.h - contrast-limited adaptive histogram equalisation: --clahe
 * [CLIP][,WxH]. Each colour channel alike, alpha kept; the bytes of OpenCV's
 * cv::createCLAHE(CLIP, Size(W, H))->apply() (modules/imgproc/src/clahe.cpp)
 * on that channel, 8 and 16 bits, any size. Shared by src/stages/clahe.c
 * (options, the gold reference, the CPU path) and cuda/clahe.cu.
 *
 * The rule, for an image of w x h pixels, a grid of W x H tiles and `bins`
 * values a sample (256 or 65536):
 *   Padding: where w % W or h % H is not 0, the image is padded at the right
 *   by W - w % W columns and at the bottom by H - h % H rows (a side that
 *   divides still gets a whole tile more), reflect101 (cb|abcd|cb, repeated
 *   where the padding is wider than the image). Tiles are tw = padded width
 *   / W by th = padded height / H pixels, area tw x th.
 *   Tables: each tile's histogram of the padded image; with CLIP > 0, each
 *   bin is cut to limit = max((int)(CLIP * area / bins), 1) (in double), the
 *   excess spread over all bins (excess / bins each) and the rest, r, one to
 *   each of bins 0, s, 2s, ... (r of them, s = max(bins / r, 1)). Then
 *   table[v] = saturate(rint((float)cum[v] * scale)), cum the running sum of
 *   the bins through v, scale = (float)(bins - 1) / (float)area.
 *   Interpolation, over the image itself (not the padding), in single
 *   precision: for column x, f = (float)x * (1.0f / tw) - 0.5f, i = floor(f),
 *   xa = f - i, xa1 = 1 - xa, tiles t1 = max(i, 0) and t2 = min(i + 1, W - 1);
 *   the same for row y (ya, ya1); with L11 = table of tile (row t1y, column
 *   t1x) at the sample's value, L12 of (t1y, t2x), L21 of (t2y, t1x), L22 of
 *   (t2y, t2x):
 *     out = saturate(rint((L11 xa1 + L12 xa) ya1 + (L21 xa1 + L22 xa) ya)),
 *   every product and sum rounded to single precision in that order, rint
 *   rounding half to even. No fused multiply-add: the Makefile compiles
 *   clahe.c with -ffp-contract=off, and the kernels use __fmul_rn /
 *   __fadd_rn. (A double interpolation is off by 1 on hundreds of pixels of
 *   a photo.)
 * OpenCV counts in int: for a tile of 2^31 pixels or more (a grid of 1x1 on
 * a 46341x46341 image) its counts overflow, where gpufilt's stay exact. */
#ifndef GF_CLAHE_H
#define GF_CLAHE_H

#include <math.h>
#include <stdint.h>

#include "../border.h" /* GF_HD, gf_border_index */
#include "../gf.h"
#include "../stage.h"
#include "lut.h" /* gf_lut_colours */

#ifdef __cplusplus
extern "C" {
#endif

#define GF_CLAHE_MAX_CLIP 1000.0
#define GF_CLAHE_MAX_GRID 64 /* tiles a side */

/* The stage's parameters (gf_stage.params). */
typedef struct gf_clahe_params {
    double clip; /* 0..1000; 0: no clipping */
    int gw, gh;  /* tiles across and down, 1..64 each */
} gf_clahe_params;

/* What the rule derives from the parameters and the image's size. */
typedef struct gf_clahe_geom {
    int gw, gh;       /* tiles across and down */
    int tw, th;       /* a tile's width and height in pixels */
    int bins;         /* 256 or 65536 */
    int64_t area;     /* tw * th */
    int64_t limit;    /* the clip limit of a bin; 0: no clipping */
    float scale;      /* (float)(bins - 1) / (float)area */
    float inv_tw, inv_th; /* 1.0f / tw, 1.0f / th */
} gf_clahe_geom;

/* The geometry of the rule for a w x h image of `bits` bits (w, h >= 1). The
 * clip limit is (int)(clip * area / bins) in double as OpenCV has it, kept at
 * most area (a limit no bin reaches: the same tables) and at least 1. */
static inline gf_clahe_geom gf_clahe_geom_of(int w, int h, int bits, double clip, int gw, int gh)
{
    gf_clahe_geom g;
    const int pad = w % gw != 0 || h % gh != 0;

    g.gw = gw, g.gh = gh;
    g.tw = (pad ? w + gw - w % gw : w) / gw;
    g.th = (pad ? h + gh - h % gh : h) / gh;
    g.bins = bits == 8 ? 256 : 65536;
    g.area = (int64_t)g.tw * g.th;
    g.limit = 0;
    if (clip > 0) {
        const double l = clip * (double)g.area / (double)g.bins;
        g.limit = l >= (double)g.area ? g.area : (int64_t)l;
        if (g.limit < 1)
            g.limit = 1;
    }
    g.scale = (float)(g.bins - 1) / (float)g.area;
    g.inv_tw = 1.0f / (float)g.tw;
    g.inv_th = 1.0f / (float)g.th;
    return g;
}

/* Single-precision steps, never fused into a multiply-add. */
#ifdef __CUDA_ARCH__
#define GF_CLAHE_MUL(a, b) __fmul_rn(a, b)
#define GF_CLAHE_ADD(a, b) __fadd_rn(a, b)
#define GF_CLAHE_SUB(a, b) __fsub_rn(a, b)
#else
#define GF_CLAHE_MUL(a, b) ((a) * (b))
#define GF_CLAHE_ADD(a, b) ((a) + (b))
#define GF_CLAHE_SUB(a, b) ((a) - (b))
#endif

/* Coordinate x on an axis of `tiles` tiles (inv = 1.0f / tile size): the
 * tiles *t1 and *t2 it interpolates between and the weight *a of t2 (t1's
 * is 1 - a). */
GF_HD void gf_clahe_axis(int x, float inv, int tiles, int *t1, int *t2, float *a)
{
    const float f = GF_CLAHE_SUB(GF_CLAHE_MUL((float)x, inv), 0.5f);
    const int i = (int)floorf(f);

    *a = GF_CLAHE_SUB(f, (float)i);
    *t1 = i < 0 ? 0 : i;
    *t2 = i + 1 > tiles - 1 ? tiles - 1 : i + 1;
}

/* Segments: the pixels between two tile centres. An axis of n tiles has
 * segments 0..n; segment k lies between tiles max(k - 1, 0) and min(k, n -
 * 1) (*t1, *t2), and a coordinate whose tiles are t1, t2 (gf_clahe_axis)
 * lies in segment gf_clahe_segment(t1, t2, n). Every pixel of a rectangle of
 * segments reads the same four tables. */
GF_HD int gf_clahe_segment(int t1, int t2, int n)
{
    return t1 != t2 ? t2 : t1 == 0 ? 0 : n;
}

GF_HD void gf_clahe_segment_tiles(int k, int n, int *t1, int *t2)
{
    *t1 = k > 0 ? k - 1 : 0;
    *t2 = k < n ? k : n - 1;
}

/* The interpolation of four table values (tiles t1y t1x, t1y t2x, t2y t1x,
 * t2y t2x) with weights xa, xa1 = 1 - xa, ya, ya1 = 1 - ya, unrounded. */
GF_HD float gf_clahe_mix(float l11, float l12, float l21, float l22, float xa, float xa1,
                         float ya, float ya1)
{
    return GF_CLAHE_ADD(
        GF_CLAHE_MUL(GF_CLAHE_ADD(GF_CLAHE_MUL(l11, xa1), GF_CLAHE_MUL(l12, xa)), ya1),
        GF_CLAHE_MUL(GF_CLAHE_ADD(GF_CLAHE_MUL(l21, xa1), GF_CLAHE_MUL(l22, xa)), ya));
}

/* v rounded half to even and saturated to 0..max (OpenCV's saturate_cast),
 * as a maximum and a minimum that loops vectorise. */
GF_HD unsigned gf_clahe_round(float v, unsigned max)
{
    float r = rintf(v);
    r = r > 0.0f ? r : 0.0f;
    r = r < (float)max ? r : (float)max;
    return (unsigned)(int)r;
}

/* The table's value for a running sum `cum` of a tile's clipped bins. */
GF_HD unsigned gf_clahe_value(int64_t cum, float scale, unsigned max)
{
    return gf_clahe_round(GF_CLAHE_MUL((float)cum, scale), max);
}

/* The clipped histogram's bin i, from the bin's count n, the limit, the
 * excess spread to every bin (batch) and the residual r with its step s:
 * bins 0, s, 2s, ... get one more, r of them. limit 0: n itself. */
GF_HD int64_t gf_clahe_bin(int64_t n, int i, int64_t limit, int64_t batch, int64_t r, int64_t s)
{
    if (!limit)
        return n;
    return (n > limit ? limit : n) + batch + (i % s == 0 && i / s < r);
}

/* The residual's step: s = max(bins / r, 1) (1 where r is 0). */
GF_HD int64_t gf_clahe_step(int bins, int64_t r)
{
    return r > 0 && bins / r > 1 ? bins / r : 1;
}

/* in (host, any layout, any stride) -> out (host, the same size and layout,
 * allocated by the caller, any stride; out may be in): the rule above on
 * each colour channel, alpha copied. clip 0..1000, gw and gh 1..64.
 * gf_clahe_gold follows the rule's definition (OpenCV's loops, the padded
 * image by gf_border_index); gf_clahe_cpu is the CPU backend's path: the
 * tiles' tables in parallel (OpenMP), then rows in parallel, 8-bit samples
 * through one 32-bit word of the four tables' values a value and a loop the
 * compiler vectorises. Tables take colours x W x H x bins samples (16-bit:
 * one channel at a time, W x H x 128 KiB).
 * Returns 0, or GF_EINTERNAL for bad arguments or out of memory. */
int gf_clahe_gold(const gf_image *in, gf_image *out, double clip, int gw, int gh);
int gf_clahe_cpu(const gf_image *in, gf_image *out, double clip, int gw, int gh);

/* CUDA launchers (cuda/clahe.cu), as gf_launch_fn, for every layout. Both
 * count the tiles' histograms, cut and spread them and make the tables on
 * the device (a block a tile and channel; 16-bit histograms with global
 * atomics, in device memory, one channel at a time), then interpolate:
 * `global`: 8-bit histograms with global atomics, the four tables read a
 *   sample from global memory (through the read-only cache);
 * `shared`: 8-bit histograms a block's band of a tile in shared memory,
 *   added to the tile's with one atomic a non-zero bin; the interpolation's
 *   blocks stage the tables of the tiles they need in shared memory, the
 *   four values of a sample value packed in one 32-bit word (8-bit; 16-bit
 *   tables of 128 KiB are read from global memory as `global` does).
 * Scratch in stream-ordered device memory. */
int gf_clahe_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_clahe_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
