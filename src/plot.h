/* plot.h - a small chart writer for reports: one or more series of counts
 * as bars or lines over an index axis, with tick labels, saved as an RGB PNG
 * (stb_image_write) through the atomic writer. Text is stb_easy_font's. */
#ifndef GF_PLOT_H_
#define GF_PLOT_H_

#include <stddef.h>
#include <stdint.h>

typedef struct gf_series {
    const uint32_t *vals;   /* n values, host memory */
    unsigned char rgb[3];   /* colour */
    int bars;               /* 1: filled bars; 0: a line */
} gf_series;

typedef struct gf_plot {
    size_t n;                 /* values per series, >= 1 */
    const gf_series *series;  /* nseries series, drawn in order */
    int nseries;
    int log;                  /* y is log10(1 + v) instead of v */
    const char *title;        /* top-left caption */
    const size_t *ticks;      /* x ticks, as indices into [0, n) */
    int nticks;
} gf_plot;

/* Plot area: at least this many pixels wide (2 per histogram bin) and high;
 * series longer than GF_PLOT_MAX_W are drawn as a min-max envelope. */
#define GF_PLOT_MIN_W 512
#define GF_PLOT_MAX_W 1024
#define GF_PLOT_AREA_H 256

/* Draws p and writes it to path ("-" is stdout) as an RGB PNG. The image is
 * the plot area plus margins for the axes and labels (so at least 512x256).
 * Errors: as gf_write (GF_ECREATE, GF_EIO), GF_EINTERNAL out of memory. */
int gf_plot_write(const char *path, const gf_plot *p);

/* The image size gf_plot_write produces for n values. */
void gf_plot_size(size_t n, int *width, int *height);

#endif
