/* geometry.h - ImageMagick's geometry strings for resizing and cropping: what
 * `convert -resize GEOMETRY` and `convert -crop GEOMETRY +repage` (ImageMagick
 * 6.9.11) make of an image of a given size. The rules are those of
 * ParseMetaGeometry and GetGeometry (magick/geometry.c) and CropImage
 * (magick/transform.c), re-derived here; tests/unit/test_geometry.c checks them
 * against /usr/bin/convert itself.
 *
 * Nothing here touches pixels: each function maps strings and sizes to sizes.
 * Errors are return values (-1, with a reason where the function takes one). */
#ifndef GF_GEOMETRY_H
#define GF_GEOMETRY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest size or offset a geometry string may give: pixels for a side or
 * an offset, percent for a scale. Anything above is refused as absurd. */
#define GF_GEOM_MAX 1000000
/* The largest area A@ may give, in pixels: GF_GEOM_MAX squared. */
#define GF_GEOM_AREA_MAX 1e12

/* What a resize geometry gave (gf_geometry.flags). */
enum {
    GF_GEOM_W = 1,        /* a width was given (A@: the area; W:H: W) */
    GF_GEOM_H = 2,        /* a height was given (W:H: H) */
    GF_GEOM_PERCENT = 4,  /* % : w and h are percent of the input's sides */
    GF_GEOM_EXACT = 8,    /* ! : exactly WxH, the aspect ratio not kept */
    GF_GEOM_COVER = 16,   /* ^ : the smallest size that covers WxH */
    GF_GEOM_SHRINK = 32,  /* > : only shrink, side by side */
    GF_GEOM_ENLARGE = 64, /* < : only enlarge, side by side */
    GF_GEOM_AREA = 128,   /* @ : at most w pixels in all, the aspect ratio kept */
    GF_GEOM_RATIO = 256,  /* W:H : the input squeezed to the aspect ratio w:h */
    GF_GEOM_OPEN = 512,   /* "Wx": an 'x' with no height after it, which ImageMagick
                             reads as a height of 0 (it differs from W alone only when
                             W is the input's width) */
};

/* A parsed resize geometry. w, h: pixels, or percent with GF_GEOM_PERCENT,
 * the area in pixels with GF_GEOM_AREA, the ratio's terms with
 * GF_GEOM_RATIO; each means something only where its flag (GF_GEOM_W,
 * GF_GEOM_H) is set. */
typedef struct gf_geometry {
    double w, h;
    unsigned flags;
} gf_geometry;

/* Parses a resize geometry as ImageMagick 6's GetGeometry reads it for
 * `convert -resize`:
 *   - spaces anywhere are dropped, and the flags ! ^ > < % @ are taken from
 *     wherever they stand (a flag may repeat);
 *   - what is left is W, Wx, xH or WxH in pixels (decimals allowed, rounded
 *     half up as ImageMagick does: 0.5..GF_GEOM_MAX), or with % percent of
 *     the input's sides ("N%" and "N%x": both sides; "xN%": the width kept;
 *     percent in (0, GF_GEOM_MAX]); or A@, at most A pixels in all (1 to
 *     GF_GEOM_AREA_MAX); or W:H, an aspect ratio (both terms above 0);
 *   - then an offset, +X+Y or +X (any signs), which a resize ignores as
 *     convert does. 'x' or 'X' separates the sides. "N%" sets both
 *     GF_GEOM_W and GF_GEOM_H with h = w.
 * Refused where convert would give nonsense or a side of 0, or where
 * gpufilt keeps the forms apart: empty, "x", a size of 0 or below 0.5, a
 * negative size ("-5x3", "10x-3", which convert reads as offsets), sizes
 * above the bounds ("1e9x1e9"), @ without A or with %, W:H with % or @,
 * parentheses, commas, '/', and anything else.
 * Returns 0 with *g set, or -1 with a reason without a prefix written to why
 * (n bytes, always terminated; why may be NULL). */
int gf_geometry_parse(const char *s, gf_geometry *g, char *why, size_t n);

/* The output size, *ow x *oh pixels, that `convert -resize` gives an input of
 * w x h pixels (w, h >= 1) under geometry g, as ImageMagick 6's
 * ParseMetaGeometry computes it, in double precision with floor(x + 0.5)
 * rounding. Of note:
 *   - Percent: each side is floor(side * percent / 100 + 0.5); ! ^ > < then do
 *     nothing, and a side of 0 is possible (see the returns).
 *   - W or xH alone keeps the aspect ratio; W^ makes the shorter side W, xH^
 *     likewise H.
 *   - A geometry equal to the input size leaves it as it is; for W alone (even
 *     W^) a width equal to the input's is enough, but Wx^ and xH^ still cover
 *     (ImageMagick reads the side not given as 0 there).
 *   - > and < clamp each side to the input's on its own, so WxH!> can change
 *     the aspect ratio; >< together keep the input size.
 *   - A@ scales the result so far, where it has more than A pixels on either
 *     side's account, to trunc(side x sqrt(A / (w x h))) on each side: it
 *     enlarges a smaller image to A pixels too, as convert does.
 *   - W:H keeps the input's side that the ratio leaves whole and makes the
 *     other floor(... + 0.5) to the ratio (384x303 and 4:3 give 384x288);
 *     ! ^ > < then do nothing.
 * Returns 0 with *ow, *oh >= 1, or -1 (*ow, *oh untouched): a NULL pointer,
 * w or h < 1, g without a side, a side of 0 (convert fails there with
 * "negative or zero image size"), or a side above INT_MAX. */
int gf_geometry_resize(const gf_geometry *g, int w, int h, int *ow, int *oh);

/* A crop geometry: a w x h pixel rectangle whose top-left corner is (x, y)
 * in the image's pixel coordinates; x, y may be negative. */
typedef struct gf_crop {
    long w, h, x, y;
} gf_crop;

/* Parses "WxH+X+Y" or "WxH" (meaning +0+0): W, H integers in
 * 1..GF_GEOM_MAX; X, Y integers with one sign each, '+' or '-', of magnitude
 * at most GF_GEOM_MAX. Unlike ImageMagick, "WxH" is one region at +0+0, never
 * tiles. Returns 0 with *c set, or -1 with a reason without a prefix in why
 * (n bytes, always terminated; why may be NULL). */
int gf_crop_parse(const char *s, gf_crop *c, char *why, size_t n);

/* The region `convert -crop GEOMETRY +repage` cuts from a w x h image
 * (w, h >= 1): the crop rectangle clipped to the image. Returns 0 with
 * (*x, *y) its top-left corner in the input (0 <= *x < w, 0 <= *y < h) and
 * *cw x *ch its size (>= 1), or -1 (outputs untouched) when the rectangle
 * lies wholly outside the image (convert warns "geometry does not contain
 * image" there and gives a 1x1 image, or the image uncut when the rectangle
 * starts exactly at its right or bottom edge), for a NULL pointer, w or h
 * < 1, or c->w or c->h < 1. */
int gf_crop_region(const gf_crop *c, int w, int h, int *x, int *y, int *cw, int *ch);

#ifdef __cplusplus
}
#endif

#endif
