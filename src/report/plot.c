/* plot.c - report plots as PNG (cairo) or SVG (plot.h). One layout, drawn
 * through a small canvas with two backends. */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo/cairo.h>
#include <dlfcn.h>
#include <pthread.h>

#include "../gf.h"

/* cairo is loaded when the first plot is drawn, not when gpufilt starts:
 * it brings some twenty libraries (fontconfig, freetype, pixman, X11...)
 * whose loading would add milliseconds to every run, and plots are rare.
 * Each function is called through a pointer of its own declared type. */
#define CAIRO_FUNCTIONS(X)                                                                    \
    X(cairo_close_path) X(cairo_create) X(cairo_destroy) X(cairo_fill)                        \
    X(cairo_image_surface_create) X(cairo_line_to) X(cairo_move_to) X(cairo_rectangle)        \
    X(cairo_restore) X(cairo_rotate) X(cairo_save) X(cairo_select_font_face)                  \
    X(cairo_set_font_size) X(cairo_set_line_join) X(cairo_set_line_width)                     \
    X(cairo_set_source_rgba) X(cairo_show_text) X(cairo_status) X(cairo_status_to_string)     \
    X(cairo_stroke) X(cairo_surface_destroy) X(cairo_surface_flush)                           \
    X(cairo_surface_write_to_png_stream) X(cairo_text_extents) X(cairo_translate)
#define POINTER(f) static __typeof__(f) *p_##f;
CAIRO_FUNCTIONS(POINTER)
#undef POINTER
static pthread_once_t cairo_once = PTHREAD_ONCE_INIT;
static int cairo_loaded;

static void load_cairo(void)
{
    void *h = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    int ok = h != NULL;
#define RESOLVE(f) ok = ok && (*(void **)&p_##f = dlsym(h, #f)) != NULL;
    CAIRO_FUNCTIONS(RESOLVE)
#undef RESOLVE
    cairo_loaded = ok;
}
/* calls below go through the pointers */
#define cairo_close_path p_cairo_close_path
#define cairo_create p_cairo_create
#define cairo_destroy p_cairo_destroy
#define cairo_fill p_cairo_fill
#define cairo_image_surface_create p_cairo_image_surface_create
#define cairo_line_to p_cairo_line_to
#define cairo_move_to p_cairo_move_to
#define cairo_rectangle p_cairo_rectangle
#define cairo_restore p_cairo_restore
#define cairo_rotate p_cairo_rotate
#define cairo_save p_cairo_save
#define cairo_select_font_face p_cairo_select_font_face
#define cairo_set_font_size p_cairo_set_font_size
#define cairo_set_line_join p_cairo_set_line_join
#define cairo_set_line_width p_cairo_set_line_width
#define cairo_set_source_rgba p_cairo_set_source_rgba
#define cairo_show_text p_cairo_show_text
#define cairo_status p_cairo_status
#define cairo_status_to_string p_cairo_status_to_string
#define cairo_stroke p_cairo_stroke
#define cairo_surface_destroy p_cairo_surface_destroy
#define cairo_surface_flush p_cairo_surface_flush
#define cairo_surface_write_to_png_stream p_cairo_surface_write_to_png_stream
#define cairo_text_extents p_cairo_text_extents
#define cairo_translate p_cairo_translate

#define FONT "DejaVu Sans"
#define TITLE_SIZE 16.0
#define LABEL_SIZE 13.0 /* axis titles and legend */
#define TICK_SIZE 12.0
#define MARGIN_TOP 44.0
#define MARGIN_RIGHT 24.0
#define MARGIN_BOTTOM 56.0
#define TICK_LEN 5.0

typedef struct canvas {
    cairo_surface_t *surface;
    cairo_t *cr;  /* draws the PNG; measures text for both */
    FILE *svg;    /* SVG text, or NULL for PNG */
} canvas;

static const unsigned char black[3] = {0, 0, 0}, grid[3] = {225, 225, 225},
                           axis[3] = {90, 90, 90};

static void set_rgb(canvas *c, const unsigned char rgb[3], double alpha)
{
    cairo_set_source_rgba(c->cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0, alpha);
}

static void rect(canvas *c, double x, double y, double w, double h, const unsigned char rgb[3])
{
    if (c->svg) {
        fprintf(c->svg, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                        "fill=\"#%02x%02x%02x\"/>\n",
                x, y, w, h, rgb[0], rgb[1], rgb[2]);
        return;
    }
    set_rgb(c, rgb, 1);
    cairo_rectangle(c->cr, x, y, w, h);
    cairo_fill(c->cr);
}

/* A polyline through n points; closed and filled (at alpha) when fill. */
static void path(canvas *c, const double *xs, const double *ys, int n, const unsigned char rgb[3],
                 double width, int fill, double alpha)
{
    if (n < 1)
        return;
    if (c->svg) {
        fprintf(c->svg, "<%s points=\"", fill ? "polygon" : "polyline");
        for (int i = 0; i < n; i++)
            fprintf(c->svg, "%s%.2f,%.2f", i ? " " : "", xs[i], ys[i]);
        if (fill)
            fprintf(c->svg, "\" fill=\"#%02x%02x%02x\" fill-opacity=\"%.2f\" stroke=\"none\"/>\n",
                    rgb[0], rgb[1], rgb[2], alpha);
        else
            fprintf(c->svg, "\" fill=\"none\" stroke=\"#%02x%02x%02x\" stroke-width=\"%.2f\" "
                            "stroke-linejoin=\"round\"/>\n",
                    rgb[0], rgb[1], rgb[2], width);
        return;
    }
    cairo_move_to(c->cr, xs[0], ys[0]);
    for (int i = 1; i < n; i++)
        cairo_line_to(c->cr, xs[i], ys[i]);
    set_rgb(c, rgb, fill ? alpha : 1);
    if (fill) {
        cairo_close_path(c->cr);
        cairo_fill(c->cr);
    } else {
        cairo_set_line_width(c->cr, width);
        cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_ROUND);
        cairo_stroke(c->cr);
    }
}

static void line(canvas *c, double x0, double y0, double x1, double y1, const unsigned char rgb[3],
                 double width)
{
    double xs[2] = {x0, x1}, ys[2] = {y0, y1};
    path(c, xs, ys, 2, rgb, width, 0, 1);
}

static void font(canvas *c, double size, int bold)
{
    cairo_select_font_face(c->cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(c->cr, size);
}

static double text_width(canvas *c, const char *s, double size, int bold)
{
    cairo_text_extents_t e;
    font(c, size, bold);
    cairo_text_extents(c->cr, s, &e);
    return e.x_advance;
}

static void xml_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}

/* Text with its baseline at y; anchor -1 left, 0 centre, 1 right at x;
 * vertical: rotated to read upwards. */
static void text(canvas *c, double x, double y, const char *s, double size, int bold, int anchor,
                 int vertical)
{
    if (c->svg) {
        fprintf(c->svg, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"%s, sans-serif\" "
                        "font-size=\"%.1f\"%s text-anchor=\"%s\"",
                x, y, FONT, size, bold ? " font-weight=\"bold\"" : "",
                anchor < 0 ? "start" : anchor ? "end" : "middle");
        if (vertical)
            fprintf(c->svg, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
        fputc('>', c->svg);
        xml_escaped(c->svg, s);
        fputs("</text>\n", c->svg);
        return;
    }
    double w = text_width(c, s, size, bold), off = anchor < 0 ? 0 : anchor ? w : w / 2;
    cairo_save(c->cr);
    cairo_translate(c->cr, x, y);
    if (vertical)
        cairo_rotate(c->cr, -M_PI / 2);
    cairo_move_to(c->cr, -off, 0);
    set_rgb(c, black, 1);
    cairo_show_text(c->cr, s);
    cairo_restore(c->cr);
}

double gf_plot_ticks(double max, double *top)
{
    static const double mult[] = {1, 2, 5};
    double step = 1;

    if (max < 1)
        max = 1;
    for (double p = 1; p < 1e12; p *= 10) {
        int found = 0;
        for (int i = 0; i < 3 && !found; i++) {
            step = mult[i] * p;
            found = ceil(max / step) <= 10;
        }
        if (found)
            break;
    }
    *top = ceil(max / step) * step;
    return step;
}

/* A tick label: an integer, with k, M or G past 9999. */
static void number(char *buf, size_t n, double v)
{
    static const char *const sfx[] = {"", "k", "M", "G"};
    int i = 0;

    while (fabs(v) >= 10000 && i < 3) {
        v /= 1000;
        i++;
    }
    if (v == floor(v))
        snprintf(buf, n, "%.0f%s", v, sfx[i]);
    else
        snprintf(buf, n, "%.1f%s", v, sfx[i]);
}

/* "10" followed by k as superscript digits: 10², 10³, ... */
static void power_of_ten(char *buf, size_t n, int k)
{
    static const char *const sup[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                      "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    char digits[16];
    size_t len;

    if (k == 0) {
        snprintf(buf, n, "1");
        return;
    }
    if (k == 1) {
        snprintf(buf, n, "10");
        return;
    }
    snprintf(buf, n, "10");
    snprintf(digits, sizeof digits, "%d", k);
    for (const char *d = digits; *d; d++) {
        len = strlen(buf);
        snprintf(buf + len, n - len, "%s", sup[*d - '0']);
    }
}

/* The label of y tick v: a power of ten on a log scale (0 at the foot). */
static void y_label(const gf_plot *p, double v, char *buf, size_t n)
{
    if (p->log && v == 0)
        snprintf(buf, n, "0");
    else if (p->log)
        power_of_ten(buf, n, (int)v);
    else
        number(buf, n, v);
}

static double yval(const gf_plot *p, uint32_t v)
{
    return p->log ? log10(1.0 + v) : (double)v;
}

typedef struct layout {
    double x0, y0, x1, y1; /* plot area */
    double ytop;           /* the y value at the top of the area */
} layout;

static double ypix(const layout *L, double v)
{
    return L->y1 - v / L->ytop * (L->y1 - L->y0);
}

static void draw_series(canvas *c, const gf_plot *p, const layout *L, const gf_plot_series *se)
{
    const double pw = L->x1 - L->x0;
    const int cols = p->n > (size_t)pw ? (int)pw : (int)p->n; /* one point per column or value */
    double *xs = malloc(sizeof *xs * (2 * (size_t)cols + 2)),
           *ys = malloc(sizeof *ys * (2 * (size_t)cols + 2));

    if (!xs || !ys) {
        free(xs);
        free(ys);
        return;
    }
    for (int k = 0; k < cols; k++) {
        size_t i0 = (size_t)k * p->n / (size_t)cols, i1 = (size_t)(k + 1) * p->n / (size_t)cols;
        double lo = INFINITY, hi = -INFINITY, bx = L->x0 + pw * k / cols, bw = pw / cols;
        if (i1 <= i0)
            i1 = i0 + 1;
        for (size_t i = i0; i < i1; i++) {
            double v = yval(p, se->vals[i]);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        if (se->bars) {
            if (hi > 0)
                rect(c, bx, ypix(L, hi), bw > 1.5 ? bw - 0.5 : bw, ypix(L, 0) - ypix(L, hi),
                     se->rgb);
            continue;
        }
        xs[k] = bx + bw / 2;
        ys[k] = ypix(L, hi);
        xs[2 * cols - 1 - k] = xs[k];
        ys[2 * cols - 1 - k] = ypix(L, lo);
    }
    if (!se->bars) {
        if (p->n > (size_t)pw) /* a min-max envelope, then its upper edge */
            path(c, xs, ys, 2 * cols, se->rgb, 0, 1, 0.35);
        path(c, xs, ys, cols, se->rgb, 1.5, 0, 1);
    }
    free(xs);
    free(ys);
}

static void draw(canvas *c, const gf_plot *p, int W, int H)
{
    char label[64];
    double ymax = 0, step, top, lw = 0;
    layout L;

    for (int s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->n; i++)
            if (yval(p, p->series[s].vals[i]) > ymax)
                ymax = yval(p, p->series[s].vals[i]);
    if (p->log) {
        top = ceil(ymax);
        top = top < 1 ? 1 : top;
        step = top > 10 ? 2 : 1;
        top = ceil(top / step) * step;
    } else {
        step = gf_plot_ticks(ymax, &top);
    }
    /* the left margin holds the widest y label and the y title */
    for (double v = 0; v <= top + 1e-9; v += step) {
        y_label(p, v, label, sizeof label);
        double w = text_width(c, label, TICK_SIZE, 0);
        lw = w > lw ? w : lw;
    }
    L.x0 = 8 + LABEL_SIZE + 10 + lw + 8 + TICK_LEN;
    L.y0 = MARGIN_TOP;
    L.x1 = W - MARGIN_RIGHT;
    L.y1 = H - MARGIN_BOTTOM;
    L.ytop = top;

    rect(c, 0, 0, W, H, (const unsigned char[3]){255, 255, 255});
    text(c, L.x0, 26, p->title, TITLE_SIZE, 1, -1, 0);
    /* y grid, ticks and labels */
    for (double v = 0; v <= top + 1e-9; v += step) {
        double y = ypix(&L, v);
        y_label(p, v, label, sizeof label);
        if (v > 0)
            line(c, L.x0, y, L.x1, y, grid, 1);
        line(c, L.x0 - TICK_LEN, y, L.x0, y, axis, 1);
        text(c, L.x0 - TICK_LEN - 4, y + TICK_SIZE * 0.35, label, TICK_SIZE, 0, 1, 0);
    }
    for (int s = 0; s < p->nseries; s++)
        draw_series(c, p, &L, &p->series[s]);
    /* axes, x ticks and labels */
    line(c, L.x0, L.y0, L.x0, L.y1, axis, 1);
    line(c, L.x0, L.y1, L.x1, L.y1, axis, 1);
    {
        int xmax = p->x_max > 0 ? p->x_max : (int)p->n - 1;
        double xstep = gf_plot_ticks(xmax, &top), pw = L.x1 - L.x0;
        for (double v = 0; v <= xmax + 1e-9; v += xstep) {
            double x = L.x0 + pw * (v + 0.5) / (double)p->n;
            number(label, sizeof label, v);
            line(c, x, L.y1, x, L.y1 + TICK_LEN, axis, 1);
            text(c, x, L.y1 + TICK_LEN + TICK_SIZE + 2, label, TICK_SIZE, 0, 0, 0);
        }
    }
    if (p->x_title)
        text(c, (L.x0 + L.x1) / 2, H - 12, p->x_title, LABEL_SIZE, 0, 0, 0);
    if (p->y_title)
        text(c, 8 + LABEL_SIZE, (L.y0 + L.y1) / 2, p->y_title, LABEL_SIZE, 0, 0, 1);
    /* legend, top right inside the plot area */
    {
        double wmax = 0, y = L.y0 + 8 + LABEL_SIZE;
        int named = 0;
        for (int s = 0; s < p->nseries; s++)
            if (p->series[s].name) {
                double w = text_width(c, p->series[s].name, LABEL_SIZE, 0);
                wmax = w > wmax ? w : wmax;
                named++;
            }
        if (named) {
            double bx = L.x1 - wmax - 46, bh = named * (LABEL_SIZE + 6) + 8;
            rect(c, bx - 1, L.y0 + 3, wmax + 42, bh + 2, grid);
            rect(c, bx, L.y0 + 4, wmax + 40, bh, (const unsigned char[3]){255, 255, 255});
            for (int s = 0; s < p->nseries; s++) {
                if (!p->series[s].name)
                    continue;
                if (p->series[s].bars)
                    rect(c, bx + 6, y - LABEL_SIZE * 0.7, 20, LABEL_SIZE * 0.7, p->series[s].rgb);
                else
                    line(c, bx + 6, y - LABEL_SIZE * 0.35, bx + 26, y - LABEL_SIZE * 0.35,
                         p->series[s].rgb, 2.5);
                text(c, bx + 32, y, p->series[s].name, LABEL_SIZE, 0, -1, 0);
                y += LABEL_SIZE + 6;
            }
        }
    }
}

/* cairo's PNG bytes, appended to the FILE at closure. */
static cairo_status_t file_write(void *closure, const unsigned char *data, unsigned int n)
{
    return fwrite(data, 1, n, closure) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int gf_plot_render(const gf_plot *p, int svg, unsigned char **out, size_t *len)
{
    const int W = p->width > 0 ? p->width : GF_PLOT_W, H = p->height > 0 ? p->height : GF_PLOT_H;
    canvas c = {NULL, NULL, NULL};
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = NULL;
    int rc = 0;

    *out = NULL;
    *len = 0;
    pthread_once(&cairo_once, load_cairo);
    if (!cairo_loaded)
        return gf_err(GF_EINTERNAL, NULL, "cannot draw plots: libcairo.so.2 cannot be loaded: %s",
                      dlerror() ? dlerror() : "missing symbols");
    c.surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, svg ? 1 : W, svg ? 1 : H);
    c.cr = cairo_create(c.surface);
    if (cairo_status(c.cr) != CAIRO_STATUS_SUCCESS) {
        rc = gf_err(GF_EINTERNAL, NULL, "cannot draw the plot: %s",
                    cairo_status_to_string(cairo_status(c.cr)));
        goto out;
    }
    if (!(f = open_memstream(&buf, &blen))) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory for the plot");
        goto out;
    }
    if (svg) {
        c.svg = f;
        fprintf(f,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\">\n<title>",
                W, H, W, H);
        xml_escaped(f, p->title);
        fputs("</title>\n", f);
    }
    draw(&c, p, W, H);
    if (svg) {
        fputs("</svg>\n", f);
    } else {
        cairo_surface_flush(c.surface);
        if (cairo_surface_write_to_png_stream(c.surface, file_write, f) != CAIRO_STATUS_SUCCESS)
            rc = gf_err(GF_EINTERNAL, NULL, "cannot encode the plot");
    }
    if (fclose(f) && rc == 0)
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory for the plot");
    if (rc) {
        free(buf);
    } else {
        *out = (unsigned char *)buf;
        *len = blen;
    }
out:
    cairo_destroy(c.cr);
    cairo_surface_destroy(c.surface);
    return rc;
}
