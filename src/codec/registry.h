/* registry.h - the one list of image formats (internal to src/codec/):
 * registry.c's gf_codecs. Detection, limits, --format and its help, the
 * output extensions, the layouts each format holds and encoding all read
 * the formats from it (decode.c, encode.c). A new format is its own file,
 * its functions in formats.h and one line of gf_codecs. */
#ifndef GF_CODEC_REGISTRY_H
#define GF_CODEC_REGISTRY_H

#include "codec.h"

/* Sets of layouts (gf.h's GF_LAYOUT_BIT; GF_LAYOUTS_ALL, GF_LAYOUTS_GRAY
 * there), for what a format writes. */
#define GF_LAYOUTS_8BIT 0x0fu  /* every channel count, 8 bits */
#define GF_LAYOUTS_16BIT 0xf0u /* every channel count, 16 bits */
#define GF_LAYOUTS_RGB (GF_LAYOUT_BIT(3, 8) | GF_LAYOUT_BIT(3, 16))
#define GF_LAYOUTS_ALPHA \
    (GF_LAYOUT_BIT(2, 8) | GF_LAYOUT_BIT(4, 8) | GF_LAYOUT_BIT(2, 16) | GF_LAYOUT_BIT(4, 16))

/* Why a format refuses some layouts: the message for those of `layouts`, a
 * printf format whose one %s is the image's layout in words ("RGB 8-bit"). */
typedef struct gf_refusal {
    unsigned layouts;
    const char *why;
} gf_refusal;

#define GF_CODEC_NAMES 3 /* names or extensions a format has at most */

/* A format, as the codec sees it. The functions follow formats.h's
 * contracts (sniff, decode, peek, encode). */
typedef struct gf_codec {
    gf_format format;                  /* its public identifier; GF_FMT_NONE: only read */
    const char *label;                 /* in messages: "JPEG" */
    const char *names[GF_CODEC_NAMES]; /* --format names, its own first: "jpeg", "jpg" */
    const char *exts[GF_CODEC_NAMES];  /* file extensions without the dot, either case; the
                                          first is given to outputs: "jpg", "jpeg" */
    int (*sniff)(const unsigned char *buf, size_t len);
    int (*decode)(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);
    int (*peek)(const unsigned char *buf, size_t len, gf_shape *s);
    int (*encode)(const gf_image *im, const gf_encode_opts *o, unsigned char **out,
                  size_t *len); /* NULL: only read */
    unsigned layouts;           /* what encode takes: GF_LAYOUT_BIT bits; 0 when only read */
    const char *settings;       /* the options that apply to writing it, separated by
                                   spaces: "--png-level"; "" for none */
    const gf_refusal *refusals; /* advice for the layouts it refuses: the first entry
                                   that matches, up to one of NULL why; NULL, or none
                                   matching: gf_format_holds's own */
    unsigned traits;            /* GF_CODEC_* below, or 0 */
} gf_codec;

/* gf_codec.traits. */
enum {
    GF_CODEC_PAGES = 1, /* a file holds several images: lim->page picks one (others refuse
                           a page above 0) */
    GF_CODEC_WHOLE = 2, /* read whole, to --max-file-size (its directories may follow the
                           data): the header's size is checked when peek finds it in what
                           is read so far, and bounds nothing */
    GF_CODEC_GRAY_AS_RGB = 4, /* gray is stored as RGB (R = G = B): a GRAY profile that comes
                                 with an RGB image is the gray image's, not a contradiction */
};

/* Every format, in the order messages list them; an entry with a NULL label
 * ends it. */
extern const gf_codec gf_codecs[];

/* The format whose signature buf starts with, or NULL. */
const gf_codec *gf_codec_sniff(const unsigned char *buf, size_t len);

/* The written format f, or NULL (GF_FMT_NONE, or not written). */
const gf_codec *gf_codec_of(gf_format f);

/* 1 when c is written and holds `layout` (GF_LAYOUT_BIT bits; 0: any). */
int gf_codec_writes(const gf_codec *c, unsigned layout);

/* What gf_codec_list gives of each format. */
typedef enum gf_codec_item {
    GF_ITEM_LABEL,      /* "JPEG" */
    GF_ITEM_NAME,       /* its own --format name: "jpeg" */
    GF_ITEM_EXT,        /* its first extension: ".jpg" */
    GF_ITEM_LABEL_EXTS, /* "JPEG (.jpg, .jpeg)" */
} gf_codec_item;

/* Every format read (written 0), or the written formats that hold `layout`
 * (written 1; layout 0: all of them), in gf_codecs' order, each as `item`,
 * joined by sep and, before the last, by last, into buf (n bytes, cut short
 * to fit), for messages and --help. Returns buf. */
char *gf_codec_list(char *buf, size_t n, int written, unsigned layout, gf_codec_item item,
                    const char *sep, const char *last);

#endif
