/* encode.c - output formats and encoding (codec.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "formats.h"

/* The output formats' names (a format's first is its own), also the extensions of their files. */
static const struct {
    const char *name;
    gf_format fmt;
} names[] = {{"png", GF_FMT_PNG}, {"pgm", GF_FMT_PGM},   {"ppm", GF_FMT_PPM},
             {"pam", GF_FMT_PAM}, {"jpeg", GF_FMT_JPEG}, {"jpg", GF_FMT_JPEG},
             {"tiff", GF_FMT_TIFF}, {"tif", GF_FMT_TIFF}};

/* The format that name spells by cmp (strcmp or strcasecmp), or GF_FMT_NONE. */
static gf_format lookup(const char *name, int (*cmp)(const char *, const char *))
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!cmp(name, names[i].name))
            return names[i].fmt;
    return GF_FMT_NONE;
}

gf_format gf_format_parse(const char *name)
{
    return lookup(name, strcmp);
}

const char *gf_format_name(gf_format f)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].fmt == f)
            return names[i].name; /* the first: "jpeg" before "jpg" */
    return "none";
}

const char *gf_format_ext(gf_format f)
{
    return f == GF_FMT_JPEG ? "jpg" : f == GF_FMT_TIFF ? "tif" : gf_format_name(f);
}

/* The extension of path (gf_path_ext), NULL where it is empty. */
static const char *extension(const char *path)
{
    const char *ext = gf_path_ext(path);

    return ext && *ext ? ext : NULL;
}

gf_format gf_format_from_name(const char *path)
{
    const char *ext = extension(path);

    return ext ? lookup(ext, strcasecmp) : GF_FMT_NONE;
}

int gf_format_check_name(const char *path, gf_format *fmt, int given)
{
    const char *ext = extension(path);
    gf_format named = gf_format_from_name(path);

    if (ext && !named && !strchr(ext, '}'))
        return gf_err(GF_EUSAGE, path,
                      "%s images are not written; gpufilt writes PNG (.png), PGM (.pgm), PPM "
                      "(.ppm), PAM (.pam), JPEG (.jpg, .jpeg) and TIFF (.tif, .tiff)",
                      ext);
    if (given && named && named != *fmt)
        return gf_err(GF_EUSAGE, path, "--format %s contradicts the name's extension",
                      gf_format_name(*fmt));
    if (!given)
        *fmt = named;
    if (!*fmt)
        return gf_err(GF_EUSAGE, path,
                      "cannot tell the output format from the name: give it an extension "
                      "(.png, .pgm, .ppm, .pam, .jpg, .tif) or use --format "
                      "png|pgm|ppm|pam|jpeg|tiff");
    return 0;
}

int gf_format_holds(gf_format f, int channels, int bits)
{
    const char *what = gf_layout_words(channels, bits);

    switch (f) {
    case GF_FMT_JPEG:
        if (bits != 8)
            return gf_err(GF_EUSAGE, NULL,
                          "JPEG holds 8-bit samples, not a %s image: put --depth 8 before the "
                          "output, or write PNG",
                          what);
        if (channels == 2 || channels == 4)
            return gf_err(GF_EUSAGE, NULL,
                          "JPEG has no alpha channel, which this %s image has: write PNG or "
                          "PAM to keep it (or --gray drops it)",
                          what);
        return 0;
    case GF_FMT_PGM:
        if (channels != 1)
            return gf_err(GF_EUSAGE, NULL,
                          "PGM holds gray images, not %s: put --gray before the output, or write "
                          "%s",
                          what, channels == 3 ? "PPM or PNG" : "PAM or PNG");
        return 0;
    case GF_FMT_PPM:
        if (channels != 3)
            return gf_err(GF_EUSAGE, NULL, "PPM holds RGB images, not %s: write %s", what,
                          channels == 1 ? "PGM or PNG" : "PAM or PNG");
        return 0;
    case GF_FMT_TIFF: return 0; /* every layout */
    default:
        return 0;
    }
}

int gf_encode(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    int rc = gf_format_holds(o->format, im->channels, im->bits);

    if (rc)
        return rc;
    switch (o->format) {
    case GF_FMT_PNG: return gf_encode_png(im, o->png_level, out, len);
    case GF_FMT_PGM:
    case GF_FMT_PPM:
    case GF_FMT_PAM: return gf_encode_pnm(im, o->format, out, len);
    case GF_FMT_JPEG: return gf_encode_jpeg(im, o->quality, out, len);
    case GF_FMT_TIFF: return gf_encode_tiff(im, o, out, len);
    default: return gf_err(GF_EINTERNAL, NULL, "no output format");
    }
}

int gf_save(const char *path, const gf_image *im, const gf_encode_opts *o)
{
    unsigned char *buf;
    size_t len;
    int rc = gf_encode(im, o, &buf, &len);

    if (rc == 0)
        rc = gf_write(path, buf, len);
    free(buf);
    return rc;
}
