/* geometry.c - ImageMagick 6's resize and crop geometry (see geometry.h). */
#include "geometry.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most characters of the user's string quoted back in a reason. */
#define QUOTE_MAX 64

/* The longest number text taken: GF_GEOM_MAX with decimals and an exponent
 * fits many times over. */
#define NUMBER_MAX 40

static const char RESIZE_FORMS[] = "a size must be W, xH, WxH or N%, with ! ^ > or <";
static const char CROP_FORMS[] = "a crop must be WxH or WxH+X+Y (X and Y may be negative)";

/* Writes "reason, not 's'" to why (n bytes) when there is room; returns -1. */
static int refuse(char *why, size_t n, const char *s, const char *fmt, ...)
{
    if (why && n) {
        va_list ap;
        int k;
        va_start(ap, fmt);
        k = vsnprintf(why, n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < n)
            snprintf(why + k, n - (size_t)k, ", not '%.*s%s'", QUOTE_MAX, s,
                     strlen(s) > QUOTE_MAX ? "..." : "");
    }
    return -1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Scans a decimal number at s: digits with an optional fraction (at least one
 * digit in all), then an optional exponent e[+-]digits. Returns its length
 * (0 when there is none) and its value in *v, converted by strtod from a
 * copy so that nothing after it (a hex "0x", say) is read. strtod takes '.'
 * as the decimal point in the C locale, which gpufilt keeps (it never calls
 * setlocale). */
static size_t scan_number(const char *s, double *v)
{
    size_t i = 0, digits = 0;
    char buf[NUMBER_MAX + 1];

    while (is_digit(s[i]))
        i++, digits++;
    if (s[i] == '.') {
        i++;
        while (is_digit(s[i]))
            i++, digits++;
    }
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (is_digit(s[j])) {
            while (is_digit(s[j]))
                j++;
            i = j;
        }
    }
    if (i > NUMBER_MAX) {
        *v = HUGE_VAL; /* refused as too large by the caller's bound */
        return i;
    }
    memcpy(buf, s, i);
    buf[i] = 0;
    *v = strtod(buf, NULL);
    return i;
}

/* One side of a resize geometry at *p: a number, then an optional '%' (which
 * sets *percent). Returns 0, advancing *p, or -1 where there is no number. */
static int scan_side(const char **p, double *v, int *percent)
{
    size_t k = scan_number(*p, v);
    if (!k)
        return -1;
    *p += k;
    if (**p == '%') {
        *percent = 1;
        (*p)++;
    }
    return 0;
}

int gf_geometry_parse(const char *s, gf_geometry *g, char *why, size_t n)
{
    const char *p = s, *sep;
    gf_geometry r = {0, 0, 0};
    int percent = 0;

    if (why && n)
        why[0] = 0;
    if (!s || !g)
        return refuse(why, n, "", "%s", RESIZE_FORMS);
    sep = strpbrk(s, "xX");
    if (*s == '-' || (sep && sep[1] == '-'))
        return refuse(why, n, s, "a size cannot be negative");
    if (*p != 'x' && *p != 'X') {
        if (scan_side(&p, &r.w, &percent))
            return refuse(why, n, s, "%s", RESIZE_FORMS);
        r.flags |= GF_GEOM_W;
    }
    if (*p == 'x' || *p == 'X') {
        p++;
        if (scan_side(&p, &r.h, &percent))
            return refuse(why, n, s, "%s", RESIZE_FORMS);
        r.flags |= GF_GEOM_H;
    }
    for (; *p; p++) {
        unsigned f;
        switch (*p) {
        case '%':
            if (percent)
                return refuse(why, n, s, "%s (each flag once)", RESIZE_FORMS);
            percent = 1;
            continue;
        case '!':
            f = GF_GEOM_EXACT;
            break;
        case '^':
            f = GF_GEOM_COVER;
            break;
        case '>':
            f = GF_GEOM_SHRINK;
            break;
        case '<':
            f = GF_GEOM_ENLARGE;
            break;
        default:
            return refuse(why, n, s, "%s", RESIZE_FORMS);
        }
        if (r.flags & f)
            return refuse(why, n, s, "%s (each flag once)", RESIZE_FORMS);
        r.flags |= f;
    }
    if (percent)
        r.flags |= GF_GEOM_PERCENT;
    /* As ImageMagick: one percent sign makes both sides percent, and N% alone
     * scales both sides by N. */
    if (percent && !(r.flags & GF_GEOM_H)) {
        r.h = r.w;
        r.flags |= GF_GEOM_H;
    }
    for (int k = 0; k < 2; k++) {
        double v = k ? r.h : r.w;
        if (!(r.flags & (k ? GF_GEOM_H : GF_GEOM_W)))
            continue;
        if (!(v <= GF_GEOM_MAX))
            return refuse(why, n, s, "a size must be at most %d %s", GF_GEOM_MAX,
                          percent ? "percent" : "pixels");
        if (percent ? v <= 0 : floor(v + 0.5) < 1)
            return refuse(why, n, s, "a size must be %s",
                          percent ? "above 0%" : "at least 1 pixel (0.5 rounds up to 1)");
    }
    *g = r;
    return 0;
}

/* A side as ImageMagick's GetGeometry reads it: rounded half up. */
static double round_side(double v)
{
    return floor(v + 0.5);
}

int gf_geometry_resize(const gf_geometry *g, int w, int h, int *ow, int *oh)
{
    const unsigned f = g ? g->flags : 0;
    const double fw = w, fh = h; /* the input, "former", size */
    double rw, rh;

    if (!g || !ow || !oh || w < 1 || h < 1 || !(f & (GF_GEOM_W | GF_GEOM_H)))
        return -1;
    if (f & GF_GEOM_PERCENT) {
        /* A missing side's percent: 100 for the width, the width's for the
         * height. The flags ! ^ > < change nothing here, as in ImageMagick,
         * where the percent size becomes the size they compare with. */
        double px = f & GF_GEOM_W ? g->w : 100.0;
        double py = f & GF_GEOM_H ? g->h : px;
        rw = floor(px * fw / 100.0 + 0.5);
        rh = floor(py * fh / 100.0 + 0.5);
    } else {
        /* The sides given; for xH, ImageMagick's parser leaves the width 0,
         * which matters only to the "same size as the input" test below. */
        double gw = f & GF_GEOM_W ? round_side(g->w) : 0.0;
        double gh = f & GF_GEOM_H ? round_side(g->h) : fh;
        if ((f & GF_GEOM_EXACT) || (gw == fw && gh == fh)) {
            rw = f & GF_GEOM_W ? gw : fw;
            rh = f & GF_GEOM_H ? gh : fh;
        } else {
            double scale;
            if ((f & GF_GEOM_W) && (f & GF_GEOM_H)) {
                /* fit inside WxH, or with ^ cover it */
                scale = gw / fw;
                if (f & GF_GEOM_COVER ? scale < gh / fh : scale > gh / fh)
                    scale = gh / fh;
            } else if (f & GF_GEOM_W) {
                /* the width W; with ^ the shorter side W */
                scale = gw / fw;
                if ((f & GF_GEOM_COVER) && scale < gw / fh)
                    scale = gw / fh;
            } else {
                scale = gh / fh;
                if ((f & GF_GEOM_COVER) && scale < gh / fw)
                    scale = gh / fw;
            }
            rw = fmax(floor(scale * fw + 0.5), 1.0);
            rh = fmax(floor(scale * fh + 0.5), 1.0);
        }
        /* > and < clamp each side to the input's on its own. */
        if (f & GF_GEOM_SHRINK) {
            rw = fmin(rw, fw);
            rh = fmin(rh, fh);
        }
        if (f & GF_GEOM_ENLARGE) {
            rw = fmax(rw, fw);
            rh = fmax(rh, fh);
        }
    }
    if (!(rw >= 1 && rh >= 1 && rw <= INT_MAX && rh <= INT_MAX))
        return -1;
    *ow = (int)rw;
    *oh = (int)rh;
    return 0;
}

/* An unsigned decimal integer at *p of at most GF_GEOM_MAX: 0 with *v set,
 * advancing *p; -1 where there are no digits; -2 where it is too large. */
static int scan_integer(const char **p, long *v)
{
    const char *q = *p;
    long x = 0;

    if (!is_digit(*q))
        return -1;
    for (; is_digit(*q); q++) {
        x = x * 10 + (*q - '0');
        if (x > GF_GEOM_MAX)
            return -2;
    }
    *v = x;
    *p = q;
    return 0;
}

int gf_crop_parse(const char *s, gf_crop *c, char *why, size_t n)
{
    const char *p = s;
    gf_crop r = {0, 0, 0, 0};
    int rc;

    if (why && n)
        why[0] = 0;
    if (!s || !c)
        return refuse(why, n, "", "%s", CROP_FORMS);
    rc = scan_integer(&p, &r.w);
    if (rc == 0) {
        if (*p == 'x' || *p == 'X') {
            p++;
            rc = scan_integer(&p, &r.h);
        } else {
            rc = -1;
        }
    }
    /* Then nothing, or both offsets: "+X+Y", "-X+Y", ... */
    for (int k = 0; rc == 0 && *p && k < 2; k++) {
        long *o = k ? &r.y : &r.x;
        char sign = *p++;
        if (sign != '+' && sign != '-') {
            rc = -1;
        } else if ((rc = scan_integer(&p, o)) == 0) {
            if (sign == '-')
                *o = -*o;
            if (k == 0 && !*p)
                rc = -1; /* "5x5+3": X without Y */
        }
    }
    if (rc == -2)
        return refuse(why, n, s, "a crop's sides and offsets must be at most %d", GF_GEOM_MAX);
    if (rc || *p)
        return refuse(why, n, s, "%s", CROP_FORMS);
    if (r.w < 1 || r.h < 1)
        return refuse(why, n, s, "a crop's width and height must be at least 1");
    *c = r;
    return 0;
}

/* Clips the span [pos, pos + len) to [0, size): 0 with its start and length,
 * or -1 where nothing is left. len >= 1, size >= 1. */
static int clip(long pos, long len, int size, int *start, int *count)
{
    long end;

    if (pos >= size)
        return -1;
    if (pos < 0) {
        if (len - 1 + pos < 0) /* pos + len <= 0, without overflow */
            return -1;
        end = len + pos < size ? len + pos : size;
        pos = 0;
    } else {
        end = pos + (len < size - pos ? len : size - pos);
    }
    *start = (int)pos;
    *count = (int)(end - pos);
    return 0;
}

int gf_crop_region(const gf_crop *c, int w, int h, int *x, int *y, int *cw, int *ch)
{
    int x0, y0, nx, ny;

    if (!c || !x || !y || !cw || !ch || w < 1 || h < 1 || c->w < 1 || c->h < 1)
        return -1;
    if (clip(c->x, c->w, w, &x0, &nx) || clip(c->y, c->h, h, &y0, &ny))
        return -1;
    *x = x0;
    *y = y0;
    *cw = nx;
    *ch = ny;
    return 0;
}
