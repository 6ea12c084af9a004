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

/* What a resize geometry gave (gf_geometry.flags). */
enum {
    GF_GEOM_W = 1,        /* a width was given */
    GF_GEOM_H = 2,        /* a height was given */
    GF_GEOM_PERCENT = 4,  /* % : w and h are percent of the input's sides */
    GF_GEOM_EXACT = 8,    /* ! : exactly WxH, the aspect ratio not kept */
    GF_GEOM_COVER = 16,   /* ^ : the smallest size that covers WxH */
    GF_GEOM_SHRINK = 32,  /* > : only shrink, side by side */
    GF_GEOM_ENLARGE = 64, /* < : only enlarge, side by side */
};

/* A parsed resize geometry. w, h: pixels, or percent with GF_GEOM_PERCENT;
 * each means something only where its flag (GF_GEOM_W, GF_GEOM_H) is set. */
typedef struct gf_geometry {
    double w, h;
    unsigned flags;
} gf_geometry;

/* Parses a resize geometry: W, xH or WxH in pixels (decimals allowed, rounded
 * half up as ImageMagick does: 0.5..GF_GEOM_MAX), or N% (both sides), N%xM%,
 * NxM% (both percent) or xM% (the width kept), percent in (0, GF_GEOM_MAX];
 * then any of the flags ! ^ > < (and % here), each at most once. An 'x' or 'X'
 * separates the sides. "N%" sets both GF_GEOM_W and GF_GEOM_H with h = w.
 * No spaces, offsets (+X+Y), '@' or ':' forms.
 * Returns 0 with *g set, or -1 with a reason without a prefix written to why
 * (n bytes, always terminated; why may be NULL): empty, 'x', '10x', zero or
 * negative sizes, sizes above GF_GEOM_MAX ("1e9x1e9") and anything else. */
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
 *     W^) a width equal to the input's is enough, but xH^ still covers.
 *   - > and < clamp each side to the input's on its own, so WxH!> can change
 *     the aspect ratio; >< together keep the input size.
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
