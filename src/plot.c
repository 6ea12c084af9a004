/* plot.c - charts for the report stages (plot.h). */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

#include "../third_party/stb.h"
#include "gf.h"
#include "image.h"

#define MARGIN_L 64 /* room for y labels */
#define MARGIN_R 16
#define MARGIN_T 24 /* the title */
#define MARGIN_B 28 /* x tick labels */

typedef struct canvas {
    int w, h;
    unsigned char *px; /* RGB, w * 3 bytes a row */
} canvas;

static void rect(canvas *c, int x0, int y0, int x1, int y1, const unsigned char rgb[3])
{
    if (x0 < 0)
        x0 = 0;
    if (y0 < 0)
        y0 = 0;
    if (x1 > c->w)
        x1 = c->w;
    if (y1 > c->h)
        y1 = c->h;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            memcpy(c->px + ((size_t)y * c->w + x) * 3, rgb, 3);
}

/* Text with its top-left corner at (x, y): stb_easy_font's quads, filled. */
static void text(canvas *c, int x, int y, const char *s, const unsigned char rgb[3])
{
    static char vbuf[64 * 1024];
    char buf[128];
    int quads;

    snprintf(buf, sizeof buf, "%s", s);
    quads = stb_easy_font_print((float)x, (float)y, buf, NULL, vbuf, sizeof vbuf);
    for (int q = 0; q < quads; q++) {
        const float *v0 = (const float *)(vbuf + q * 64), *v2 = (const float *)(vbuf + q * 64 + 32);
        rect(c, (int)v0[0], (int)v0[1], (int)v2[0], (int)v2[1], rgb);
    }
}

static int text_width(const char *s)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    return stb_easy_font_width(buf);
}

void gf_plot_size(size_t n, int *width, int *height)
{
    size_t pw = n >= GF_PLOT_MIN_W ? (n < GF_PLOT_MAX_W ? n : GF_PLOT_MAX_W)
                                   : n * ((GF_PLOT_MIN_W + n - 1) / n);
    *width = (int)pw + MARGIN_L + MARGIN_R;
    *height = GF_PLOT_AREA_H + MARGIN_T + MARGIN_B;
}

static double yval(const gf_plot *p, uint32_t v)
{
    return p->log ? log10(1.0 + v) : (double)v;
}

int gf_plot_write(const char *path, const gf_plot *p)
{
    static const unsigned char black[3] = {0, 0, 0}, grid[3] = {200, 200, 200};
    canvas c;
    int w, h, rc, len = 0;
    double ymax = 0;
    char label[64];
    unsigned char *png;

    gf_plot_size(p->n, &w, &h);
    const int pw = w - MARGIN_L - MARGIN_R, x0 = MARGIN_L, yb = MARGIN_T + GF_PLOT_AREA_H;
    c.w = w;
    c.h = h;
    c.px = malloc((size_t)w * h * 3);
    if (!c.px)
        return gf_err(GF_EINTERNAL, path, "out of memory for the plot");
    memset(c.px, 255, (size_t)w * h * 3);
    for (int s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->n; i++)
            if (yval(p, p->series[s].vals[i]) > ymax)
                ymax = yval(p, p->series[s].vals[i]);
    if (ymax <= 0)
        ymax = 1;

    /* series: plot column px covers indices [px*n/pw, (px+1)*n/pw) */
    for (int s = 0; s < p->nseries; s++) {
        const gf_series *se = &p->series[s];
        int prev = -1;
        for (int px = 0; px < pw; px++) {
            size_t i0 = (size_t)px * p->n / pw, i1 = (size_t)(px + 1) * p->n / pw;
            double lo = INFINITY, hi = -INFINITY;
            if (i1 <= i0)
                i1 = i0 + 1;
            for (size_t i = i0; i < i1; i++) {
                double v = yval(p, se->vals[i]);
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            int ylo = yb - (int)lround(lo / ymax * (GF_PLOT_AREA_H - 1));
            int yhi = yb - (int)lround(hi / ymax * (GF_PLOT_AREA_H - 1));
            if (se->bars) {
                if (se->vals[i0] || hi > 0)
                    rect(&c, x0 + px, yhi, x0 + px + 1, yb, se->rgb);
            } else {
                int top = yhi, bot = ylo;
                if (prev >= 0) {
                    top = prev < top ? prev : top;
                    bot = prev > bot ? prev : bot;
                }
                rect(&c, x0 + px, top, x0 + px + 1, bot + 1, se->rgb);
                prev = ylo;
            }
        }
    }

    /* axes, ticks and labels */
    rect(&c, x0 - 1, MARGIN_T, x0, yb + 1, black);
    rect(&c, x0 - 1, yb, x0 + pw, yb + 1, black);
    for (int t = 0; t < p->nticks; t++) {
        int px = (int)((double)p->ticks[t] * pw / p->n + (double)pw / p->n / 2);
        rect(&c, x0 + px, yb, x0 + px + 1, yb + 5, black);
        snprintf(label, sizeof label, "%zu", p->ticks[t]);
        text(&c, x0 + px - text_width(label) / 2, yb + 8, label, black);
    }
    if (p->log)
        snprintf(label, sizeof label, "1e%.1f", ymax);
    else
        snprintf(label, sizeof label, "%.0f", ymax);
    rect(&c, x0 - 5, MARGIN_T, x0 - 1, MARGIN_T + 1, black);
    rect(&c, x0, MARGIN_T, x0 + pw, MARGIN_T + 1, grid);
    text(&c, x0 - 8 - text_width(label), MARGIN_T - 2, label, black);
    text(&c, x0 - 8 - text_width("0"), yb - 6, "0", black);
    if (p->title)
        text(&c, x0, 6, p->title, black);

    png = gf_stb_png_encode_rgb(c.px, w * 3, w, h, &len);
    free(c.px);
    if (!png)
        return gf_err(GF_EINTERNAL, path, "out of memory encoding the plot");
    rc = gf_write(path, png, (size_t)len);
    free(png);
    return rc;
}
