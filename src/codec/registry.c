/* registry.c - the one list of image formats (registry.h). gpufilt reads
 * every format here by its signature, and writes those with an encoder;
 * --format, its help, the output extensions and the messages that list
 * formats come from this list. A new format is one line of gf_codecs (and
 * its own file, formats.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "registry.h"

/* Advice for the layouts a format refuses (the depth it lacks altogether
 * has gf_format_holds's own: put --depth before the output). */
static const gf_refusal jpeg_refusals[] = {
    {GF_LAYOUTS_ALPHA, "JPEG has no alpha channel, which this %s image has: write PNG or PAM to "
                       "keep it (or --gray drops it)"},
    {0, NULL},
};
static const gf_refusal pgm_refusals[] = {
    {GF_LAYOUTS_RGB, "PGM holds gray images, not %s: put --gray before the output, or write PPM "
                     "or PNG"},
    {GF_LAYOUTS_ALL, "PGM holds gray images, not %s: put --gray before the output, or write PAM "
                     "or PNG"},
    {0, NULL},
};
static const gf_refusal ppm_refusals[] = {
    {GF_LAYOUTS_GRAY, "PPM holds RGB images, not %s: write PGM or PNG"},
    {GF_LAYOUTS_ALL, "PPM holds RGB images, not %s: write PAM or PNG"},
    {0, NULL},
};

#define JPEG_LAYOUTS (GF_LAYOUT_BIT(1, 8) | GF_LAYOUT_BIT(3, 8))

/* One line a format: identifier, label, --format names, extensions, signature
 * test, decoder, header peek, encoder, the layouts it writes, the settings
 * that apply to writing it, advice for the layouts it refuses, traits. */
const gf_codec gf_codecs[] = {
    {GF_FMT_PNG, "PNG", {"png"}, {"png"}, gf_png_sniff, gf_decode_png, gf_peek_png, gf_encode_png, GF_LAYOUTS_ALL, "--png-level", NULL, 0},
    {GF_FMT_PGM, "PGM", {"pgm"}, {"pgm"}, gf_pgm_sniff, gf_decode_pnm, gf_peek_pnm, gf_encode_pnm, GF_LAYOUTS_GRAY, "", pgm_refusals, 0},
    {GF_FMT_PPM, "PPM", {"ppm"}, {"ppm"}, gf_ppm_sniff, gf_decode_pnm, gf_peek_pnm, gf_encode_pnm, GF_LAYOUTS_RGB, "", ppm_refusals, 0},
    {GF_FMT_PAM, "PAM", {"pam"}, {"pam"}, gf_pam_sniff, gf_decode_pnm, gf_peek_pnm, gf_encode_pnm, GF_LAYOUTS_ALL, "", NULL, 0},
    {GF_FMT_JPEG, "JPEG", {"jpeg", "jpg"}, {"jpg", "jpeg"}, gf_jpeg_sniff, gf_decode_jpeg, gf_peek_jpeg, gf_encode_jpeg, JPEG_LAYOUTS, "--quality", jpeg_refusals, 0},
    {GF_FMT_TIFF, "TIFF", {"tiff", "tif"}, {"tif", "tiff"}, gf_tiff_sniff, gf_decode_tiff, gf_peek_tiff, gf_encode_tiff, GF_LAYOUTS_ALL, "--compress", NULL, GF_CODEC_PAGES | GF_CODEC_WHOLE},
    {GF_FMT_WEBP, "WebP", {"webp"}, {"webp"}, gf_webp_sniff, gf_decode_webp, gf_peek_webp, gf_encode_webp, GF_LAYOUTS_8BIT, "--quality --lossless", NULL, GF_CODEC_GRAY_AS_RGB},
    {GF_FMT_NONE, "BMP", {"bmp"}, {"bmp"}, gf_bmp_sniff, gf_decode_bmp, gf_peek_bmp, NULL, 0, "", NULL, 0},
    {0},
};

const gf_codec *gf_codec_sniff(const unsigned char *buf, size_t len)
{
    for (const gf_codec *c = gf_codecs; c->label; c++)
        if (c->sniff(buf, len))
            return c;
    return NULL;
}

const gf_codec *gf_codec_of(gf_format f)
{
    for (const gf_codec *c = gf_codecs; c->label && f != GF_FMT_NONE; c++)
        if (c->format == f && c->encode)
            return c;
    return NULL;
}

int gf_codec_writes(const gf_codec *c, unsigned layout)
{
    return c->encode && (c->layouts & layout) == layout;
}

/* Appends printf's output to the string in buf (n bytes), cut short to fit. */
static void put(char *buf, size_t n, const char *fmt, ...)
{
    size_t at = strlen(buf);
    va_list ap;

    if (at + 1 >= n)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + at, n - at, fmt, ap);
    va_end(ap);
}

/* 1 when c is in the list: every format (written 0), or a written one that
 * holds layout. */
static int listed(const gf_codec *c, int written, unsigned layout)
{
    return !written || gf_codec_writes(c, layout);
}

char *gf_codec_list(char *buf, size_t n, int written, unsigned layout, gf_codec_item item,
                    const char *sep, const char *last)
{
    int i = 0, count = 0;

    for (const gf_codec *c = gf_codecs; c->label; c++)
        count += listed(c, written, layout);
    buf[0] = 0;
    for (const gf_codec *c = gf_codecs; c->label; c++) {
        if (!listed(c, written, layout))
            continue;
        put(buf, n, "%s", i == 0 ? "" : i == count - 1 ? last : sep);
        i++;
        switch (item) {
        case GF_ITEM_LABEL: put(buf, n, "%s", c->label); break;
        case GF_ITEM_NAME: put(buf, n, "%s", c->names[0]); break;
        case GF_ITEM_EXT: put(buf, n, ".%s", c->exts[0]); break;
        case GF_ITEM_LABEL_EXTS:
            put(buf, n, "%s", c->label);
            for (int e = 0; e < GF_CODEC_NAMES && c->exts[e]; e++)
                put(buf, n, "%s.%s", e ? ", " : " (", c->exts[e]);
            put(buf, n, ")");
            break;
        }
    }
    return buf;
}
