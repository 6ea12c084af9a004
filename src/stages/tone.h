/* tone.h - the tone stages: --equalize, --autocontrast, --level, --gamma,
 * --negate. Each maps every colour sample through a table (lut.h), the same
 * for each colour channel or one each, alpha left as it is, at 8 and 16
 * bits; MAX below is 255 or 65535. Their parameters and rules, shared by
 * their files in src/stages/ and their kernels in cuda/equalize.cu and
 * cuda/autocontrast.cu: the arithmetic of a table entry is written once
 * here, for the host and the device alike, with IEEE operations rounded to
 * nearest and never fused (the host files build with -ffp-contract=off; the
 * device calls the __fmul_rn family), so both give the same tables. */
#ifndef GF_TONE_H
#define GF_TONE_H

#include <math.h>
#include <stdint.h>

#include "../border.h" /* GF_HD */
#include "lut.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gf_stage_ops gf_stage_equalize, gf_stage_autocontrast, gf_stage_level,
    gf_stage_gamma, gf_stage_negate;

/* --equalize: OpenCV's equalizeHist (imgproc/src/histogram.cpp), per
 * colour channel. h the channel's histogram, N its pixels, i0 the first
 * value with h[i0] > 0. One value (h[i0] = N) leaves the channel as it is.
 * Otherwise scale = (float)MAX / (float)(N - h[i0]) in single precision,
 * lut[i0] = 0 (and below it, where no sample is), and for i > i0, with s
 * the count of the values i0+1 .. i, lut[i] = the nearest integer to
 * (float)s * scale, ties to even, clamped to 0..MAX. */
GF_HD float gf_equalize_scale(unsigned max, uint32_t rest)
{
#ifdef __CUDA_ARCH__
    return __fdiv_rn((float)max, __uint2float_rn(rest));
#else
    return (float)max / (float)rest;
#endif
}

GF_HD unsigned gf_equalize_entry(uint32_t s, float scale, unsigned max)
{
#ifdef __CUDA_ARCH__
    const int r = __float2int_rn(__fmul_rn(__uint2float_rn(s), scale));
#else
    const int r = (int)lrintf((float)s * scale);
#endif
    return r < 0 ? 0u : (unsigned)r > max ? max : (unsigned)r;
}

/* --autocontrast [LOW[,HIGH]]: Pillow's ImageOps.autocontrast(image,
 * cutoff=(LOW, HIGH)) (src/PIL/ImageOps.py), per colour channel. n pixels;
 * LOW percent of them are cut from the low end of the histogram and HIGH
 * percent from the high end: cut = n * LOW // 100 in Python's floating
 * floor division (gf_autocontrast_cut), taken from the bins in turn. lo and
 * hi are then the lowest and highest values left with pixels (lo MAX and hi
 * 0 when none is). Where hi <= lo the table is the identity; otherwise
 * scale = MAX / (hi - lo) and offset = -lo * scale, in double, and
 * lut[v] = int(v * scale + offset) (toward zero) clamped to 0..MAX. */
typedef struct gf_autocontrast_params {
    double low, high; /* percent, 0 .. GF_AUTOCONTRAST_MAX_CUT */
} gf_autocontrast_params;

#define GF_AUTOCONTRAST_MAX_CUT 49.0

/* floor(n * pct / 100) as Python computes n * pct // 100 for a float pct:
 * the product rounded to double, then its floor division by 100 through
 * fmod (Objects/floatobject.c, float_floor_div), exact where plain
 * floor(a / 100) can round up. */
GF_HD uint64_t gf_autocontrast_cut(uint64_t n, double pct)
{
#ifdef __CUDA_ARCH__
    const double a = __dmul_rn(__ull2double_rn(n), pct);
    const double mod = fmod(a, 100.0);
    const double div = __ddiv_rn(__dadd_rn(a, -mod), 100.0);
    double q = floor(div);
    if (__dadd_rn(div, -q) > 0.5)
        q = __dadd_rn(q, 1.0);
#else
    const double a = (double)n * pct;
    const double mod = fmod(a, 100.0);
    const double div = (a - mod) / 100.0;
    double q = floor(div);
    if (div - q > 0.5)
        q += 1.0;
#endif
    return (uint64_t)q;
}

/* The table's scale and offset for lo < hi. */
GF_HD void gf_autocontrast_line(unsigned max, int lo, int hi, double *scale, double *offset)
{
#ifdef __CUDA_ARCH__
    *scale = __ddiv_rn((double)max, (double)(hi - lo));
    *offset = __dmul_rn((double)-lo, *scale);
#else
    *scale = (double)max / (double)(hi - lo);
    *offset = (double)-lo * *scale;
#endif
}

GF_HD unsigned gf_autocontrast_entry(unsigned v, double scale, double offset, unsigned max)
{
#ifdef __CUDA_ARCH__
    const double x = __dadd_rn(__dmul_rn((double)v, scale), offset);
#else
    const double x = (double)v * scale + offset;
#endif
    return x <= 0.0 ? 0u : x >= (double)max ? max : (unsigned)x;
}

/* --level BLACK,WHITE[,GAMMA]: ImageMagick's -level (MagickCore/enhance.c,
 * LevelImage) by its formula: lut[v] = floor(MAX * f^(1/GAMMA) + 0.5) with
 * f = clamp((v - BLACK) / (WHITE - BLACK), 0, 1), in double (C's pow).
 * BLACK and WHITE are samples of the image's depth, or percentages of MAX
 * (p / 100 * MAX, unrounded); BLACK < WHITE at that depth. */
typedef struct gf_level_params {
    double black, white; /* samples, or percent where *_pct */
    int black_pct, white_pct;
    double gamma;  /* GF_TONE_MIN_GAMMA .. GF_TONE_MAX_GAMMA */
    char text[64]; /* the option's value as given, for labels and messages */
} gf_level_params;

#define GF_TONE_MIN_GAMMA 0.01
#define GF_TONE_MAX_GAMMA 100.0

/* --gamma G: lut[v] = floor(MAX * (v / MAX)^(1/G) + 0.5) in double: the
 * level table with BLACK 0 and WHITE MAX, whose f is v / MAX. */
typedef struct gf_gamma_params {
    double gamma;
} gf_gamma_params;

/* The level table for (black, white, gamma) at `bits` into lut (one table,
 * allocated here). black < white, both in 0..MAX; gamma as above. Returns
 * 0 or GF_EINTERNAL. */
int gf_level_table(double black, double white, double gamma, int bits, gf_lut *lut);

/* A gamma (GAMMA of --level, G of --gamma, named `name`): a decimal number
 * from GF_TONE_MIN_GAMMA to GF_TONE_MAX_GAMMA, the whole of s, into
 * *gamma. Returns 0, or GF_EUSAGE with "OPT: NAME must be a number from
 * 0.01 to 100, not 'S'". */
int gf_tone_parse_gamma(const char *opt, const char *name, const char *s, double *gamma);

/* --negate: lut[v] = MAX - v. */

/* The device tables of --equalize and --autocontrast (cuda/equalize.cu,
 * cuda/autocontrast.cu), as gf_lut_device_fn: each channel's histogram
 * (gf_hist_device, in stream-ordered scratch memory), then a block per
 * colour channel that makes its table from it by the rules above. */
int gf_equalize_tables_cuda(const gf_stage *s, const gf_dimage *in, void *tables, void *stream);
int gf_autocontrast_tables_cuda(const gf_stage *s, const gf_dimage *in, void *tables,
                                void *stream);

#ifdef __cplusplus
}
#endif

#endif
