/* registry.c - the one list of image formats (registry.h). gpufilt reads
 * every format here by its signature, and writes those with an encoder;
 * --format, its help, the output extensions and the messages that list
 * formats come from this list. A new format is one line of gf_codecs (and
 * its own file, formats.h). */
#include <stddef.h>

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
    {GF_FMT_WEBP, "WebP", {"webp"}, {"webp"}, gf_webp_sniff, gf_decode_webp, gf_peek_webp, gf_encode_webp, GF_LAYOUTS_8BIT, "--quality --lossless", NULL, 0},
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
