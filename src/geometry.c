/* geometry.c - ImageMagick 6's resize and crop geometry (see geometry.h). */
#include "geometry.h"

#include <ctype.h>
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

/* The longest geometry taken, without its spaces and flags. */
#define GEOMETRY_MAX 96

/* ImageMagick's MagickEpsilon (magick/magick-type.h): the area's slack and
 * PerceptibleReciprocal's floor. */
#define MAGICK_EPSILON 1.0e-12

static const char RESIZE_FORMS[] =
    "a size must be W, Wx, xH, WxH, N%, A@ or W:H, with ! ^ > or <";
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

/* Whether c is a resize flag; sets its bit in *f. */
static int take_flag(char c, unsigned *f, int *percent)
{
    switch (c) {
    case '%': *percent = 1; return 1;
    case '!': *f |= GF_GEOM_EXACT; return 1;
    case '^': *f |= GF_GEOM_COVER; return 1;
    case '>': *f |= GF_GEOM_SHRINK; return 1;
    case '<': *f |= GF_GEOM_ENLARGE; return 1;
    case '@': *f |= GF_GEOM_AREA; return 1;
    default: return 0;
    }
}

/* An offset at *p: one sign, then a number. Returns 0, advancing *p, or -1. */
static int scan_offset(const char **p)
{
    double v;
    size_t k;

    if (**p != '+' && **p != '-')
        return -1;
    if (!(k = scan_number(*p + 1, &v)))
        return -1;
    *p += 1 + k;
    return 0;
}

int gf_geometry_parse(const char *s, gf_geometry *g, char *why, size_t n)
{
    char t[GEOMETRY_MAX + 1];
    const char *p = t;
    gf_geometry r = {0, 0, 0};
    size_t k = 0;
    int percent = 0;

    if (why && n)
        why[0] = 0;
    if (!s || !g)
        return refuse(why, n, "", "%s", RESIZE_FORMS);
    /* As ImageMagick's GetGeometry: spaces dropped, the flags taken from
     * wherever they stand (each may repeat), the rest read as sizes. */
    for (const char *c = s; *c; c++) {
        if (isspace((unsigned char)*c) || take_flag(*c, &r.flags, &percent))
            continue;
        if (k == GEOMETRY_MAX)
            return refuse(why, n, s, "a size must be at most %d characters", GEOMETRY_MAX);
        t[k++] = *c;
    }
    t[k] = 0;
    if (*p == '-')
        return refuse(why, n, s, "a size cannot be negative");
    if (*p != 'x' && *p != 'X') {
        size_t m = scan_number(p, &r.w);
        if (!m)
            return refuse(why, n, s, "%s", RESIZE_FORMS);
        p += m;
        r.flags |= GF_GEOM_W;
    }
    if (*p == ':' || *p == 'x' || *p == 'X') {
        const int ratio = *p++ == ':';
        size_t m;
        if (*p == '-')
            return refuse(why, n, s, "a size cannot be negative");
        if ((m = scan_number(p, &r.h))) {
            p += m;
            r.flags |= GF_GEOM_H;
        } else if (ratio) {
            return refuse(why, n, s, "%s", RESIZE_FORMS);
        } else if (!*p) {
            r.flags |= GF_GEOM_OPEN;
        }
        if (ratio)
            r.flags |= GF_GEOM_RATIO;
    }
    /* after an 'x' or ':', an offset, +X+Y or +X, which a resize ignores
     * as convert does (without one, convert reads "10+5" as no size) */
    for (int i = 0; i < 2 && p > t && (*p == '+' || *p == '-') && strpbrk(t, "xX:"); i++)
        if (scan_offset(&p))
            return refuse(why, n, s, "%s", RESIZE_FORMS);
    if (*p || !(r.flags & (GF_GEOM_W | GF_GEOM_H)))
        return refuse(why, n, s, "%s", RESIZE_FORMS);
    if ((r.flags & GF_GEOM_RATIO) && (percent || (r.flags & GF_GEOM_AREA)))
        return refuse(why, n, s, "an aspect ratio W:H takes no %% or @");
    if ((r.flags & GF_GEOM_AREA) && (percent || !(r.flags & GF_GEOM_W)))
        return refuse(why, n, s, "an area A@ is a number of pixels before the @");
    if (percent)
        r.flags |= GF_GEOM_PERCENT;
    /* As ImageMagick: one percent sign makes both sides percent, and N% (or
     * N%x) alone scales both sides by N. */
    if (percent && !(r.flags & GF_GEOM_H)) {
        r.h = r.w;
        r.flags |= GF_GEOM_H;
    }
    for (int i = 0; i < 2; i++) {
        const double v = i ? r.h : r.w;
        const double max = !i && (r.flags & GF_GEOM_AREA) ? GF_GEOM_AREA_MAX : GF_GEOM_MAX;
        if (!(r.flags & (i ? GF_GEOM_H : GF_GEOM_W)))
            continue;
        if (!(v <= max))
            return refuse(why, n, s, "a %s must be at most %.0f%s",
                          r.flags & GF_GEOM_RATIO ? "ratio's term" : "size", max,
                          percent                    ? " percent"
                          : r.flags & GF_GEOM_RATIO ? ""
                                                     : " pixels");
        if (percent || (r.flags & GF_GEOM_RATIO) ? v <= 0 : floor(v + 0.5) < 1)
            return refuse(why, n, s, "a %s must be %s",
                          r.flags & GF_GEOM_RATIO ? "ratio's term" : "size",
                          percent                    ? "above 0%"
                          : r.flags & GF_GEOM_RATIO ? "above 0"
                                                     : "at least 1 pixel (0.5 rounds up to 1)");
    }
    *g = r;
    return 0;
}

/* A side as ImageMagick's GetGeometry reads it: rounded half up. */
static double round_side(double v)
{
    return floor(v + 0.5);
}

/* ImageMagick's PerceptibleReciprocal: 1 / x, or +-1 / MAGICK_EPSILON for
 * an x nearer 0 than that. */
static double reciprocal(double x)
{
    const double sign = x < 0.0 ? -1.0 : 1.0;
    return sign * x >= MAGICK_EPSILON ? 1.0 / x : sign / MAGICK_EPSILON;
}

int gf_geometry_resize(const gf_geometry *g, int w, int h, int *ow, int *oh)
{
    const unsigned f = g ? g->flags : 0;
    double fw = w, fh = h; /* the "former" size: the input's, then what % or W:H made */
    double rw, rh;

    if (!g || !ow || !oh || w < 1 || h < 1 || !(f & (GF_GEOM_W | GF_GEOM_H)))
        return -1;
    /* The sides as GetGeometry leaves them: xH gives a width of 0 and an
     * 'x' with nothing after it a height of 0; W alone keeps the height. */
    rw = f & GF_GEOM_W ? round_side(g->w) : 0.0;
    rh = f & GF_GEOM_H ? round_side(g->h) : f & GF_GEOM_OPEN ? 0.0 : fh;
    if (f & GF_GEOM_PERCENT) {
        /* A missing side's percent: 100 for the width, the width's for the
         * height. */
        const double px = f & GF_GEOM_W ? g->w : 100.0;
        const double py = f & GF_GEOM_H ? g->h : px;
        fw = rw = floor(px * fw / 100.0 + 0.5);
        fh = rh = floor(py * fh / 100.0 + 0.5);
    }
    if (f & GF_GEOM_RATIO) {
        /* The former size squeezed to the ratio W:H along one side. */
        const double ratio = g->w * reciprocal(g->h), image = fw * reciprocal(fh);
        if (ratio >= image) {
            rw = fw;
            rh = floor(reciprocal(ratio) * fh * image + 0.5);
        } else {
            rw = floor(reciprocal(image) * fw * ratio + 0.5);
            rh = fh;
        }
        fw = rw;
        fh = rh;
    }
    if ((f & GF_GEOM_EXACT) || (rw == fw && rh == fh)) {
        /* As given; a size equal to the former one stays, so a percent or
         * a ratio is final here, and ! ^ do nothing to it. */
        if (!(f & GF_GEOM_W))
            rw = fw;
        if (!(f & GF_GEOM_H))
            rh = fh;
    } else {
        double scale;
        if ((f & GF_GEOM_W) && (f & GF_GEOM_H)) {
            /* fit inside WxH, or with ^ cover it */
            scale = rw / fw;
            if (f & GF_GEOM_COVER ? scale < rh / fh : scale > rh / fh)
                scale = rh / fh;
        } else if (f & GF_GEOM_W) {
            /* the width W; with ^ the shorter side W */
            scale = rw / fw;
            if ((f & GF_GEOM_COVER) && scale < rw / fh)
                scale = rw / fh;
        } else {
            scale = rh / fh;
            if ((f & GF_GEOM_COVER) && scale < rh / fw)
                scale = rh / fw;
        }
        rw = fmax(floor(scale * fw + 0.5), 1.0);
        rh = fmax(floor(scale * fh + 0.5), 1.0);
    }
    /* > and < clamp each side to the former one on its own. */
    if (f & GF_GEOM_SHRINK) {
        rw = fmin(rw, fw);
        rh = fmin(rh, fh);
    }
    if (f & GF_GEOM_ENLARGE) {
        rw = fmax(rw, fw);
        rh = fmax(rh, fh);
    }
    if (f & GF_GEOM_AREA) {
        /* At most A pixels: the former size scaled by sqrt(A / its area),
         * truncated, where that is below the size so far on either side
         * (so A@ enlarges a smaller image too). */
        const double area = g->w + sqrt(MAGICK_EPSILON), distance = sqrt(fw * fh);
        const double sx = fw * reciprocal(distance * reciprocal(sqrt(area)));
        const double sy = fh * reciprocal(distance * reciprocal(sqrt(area)));
        if (sx < rw || sy < rh) {
            rw = floor(sx);
            rh = floor(sy);
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
