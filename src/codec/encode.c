/* encode.c - output formats and encoding (codec.h): names, extensions,
 * layouts and encoders all from the registry (registry.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "registry.h"

/* The written format with `name` among its --format names (exts 0) or its
 * extensions (exts 1), compared by cmp (strcmp, strcasecmp); NULL if none. */
static const gf_codec *lookup(const char *name, int exts, int (*cmp)(const char *, const char *))
{
    for (const gf_codec *c = gf_codecs; c->label; c++)
        for (int i = 0; c->encode && i < GF_CODEC_NAMES; i++) {
            const char *s = exts ? c->exts[i] : c->names[i];
            if (s && !cmp(name, s))
                return c;
        }
    return NULL;
}

gf_format gf_format_parse(const char *name)
{
    const gf_codec *c = lookup(name, 0, strcmp);

    return c ? c->format : GF_FMT_NONE;
}

char *gf_format_list(char *buf, size_t n, const char *sep, const char *last)
{
    return gf_codec_list(buf, n, 1, 0, GF_ITEM_NAME, sep, last);
}

const char *gf_format_name(gf_format f)
{
    const gf_codec *c = gf_codec_of(f);

    return c ? c->names[0] : "none";
}

const char *gf_format_ext(gf_format f)
{
    const gf_codec *c = gf_codec_of(f);

    return c ? c->exts[0] : "none";
}

const char *gf_format_settings(gf_format f)
{
    const gf_codec *c = gf_codec_of(f);

    return c ? c->settings : "";
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
    const gf_codec *c = ext ? lookup(ext, 1, strcasecmp) : NULL;

    return c ? c->format : GF_FMT_NONE;
}

int gf_format_check_name(const char *path, gf_format *fmt, int given)
{
    const char *ext = extension(path);
    gf_format named = gf_format_from_name(path);
    char a[512], b[256];

    if (ext && !named && !strchr(ext, '}'))
        return gf_err(GF_EUSAGE, path, "%s images are not written; gpufilt writes %s", ext,
                      gf_codec_list(a, sizeof a, 1, 0, GF_ITEM_LABEL_EXTS, ", ", " and "));
    if (given && named && named != *fmt)
        return gf_err(GF_EUSAGE, path, "--format %s contradicts the name's extension",
                      gf_format_name(*fmt));
    if (!given)
        *fmt = named;
    if (!*fmt)
        return gf_err(GF_EUSAGE, path,
                      "cannot tell the output format from the name: give it an extension "
                      "(%s) or use --format %s",
                      gf_codec_list(a, sizeof a, 1, 0, GF_ITEM_EXT, ", ", ", "), gf_format_list(b, sizeof b, "|", "|"));
    return 0;
}

int gf_format_holds(gf_format f, int channels, int bits)
{
    const gf_codec *c = gf_codec_of(f);
    const char *what = gf_layout_words(channels, bits);
    unsigned layout;
    char others[256];

    if (!c || channels < 1 || channels > 4 || (bits != 8 && bits != 16))
        return 0; /* gf_encode refuses what is no format; no image has such a layout */
    layout = GF_LAYOUT_BIT(channels, bits);
    if (c->layouts & layout)
        return 0;
    if (!(c->layouts & (bits == 8 ? GF_LAYOUTS_8BIT : GF_LAYOUTS_16BIT))) {
        const int depth = bits == 8 ? 16 : 8; /* the one it holds */
        const gf_codec *w = gf_codecs;
        while (w->label && !gf_codec_writes(w, layout)) /* the first format that holds it */
            w++;
        return gf_err(GF_EUSAGE, NULL,
                      "%s holds %d-bit samples, not a %s image: put --depth %d before the "
                      "output, or write %s",
                      c->label, depth, what, depth, w->label ? w->label : "another format");
    }
    for (const gf_refusal *r = c->refusals; r && r->why; r++)
        if (r->layouts & layout)
            return gf_err(GF_EUSAGE, NULL, r->why, what);
    return gf_err(GF_EUSAGE, NULL, "%s holds no %s images: write %s", c->label, what,
                  gf_codec_list(others, sizeof others, 1, layout, GF_ITEM_LABEL, ", ", " or "));
}

int gf_encode(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    const gf_codec *c = gf_codec_of(o->format);
    int rc;

    *out = NULL;
    *len = 0;
    if ((rc = gf_format_holds(o->format, im->channels, im->bits)))
        return rc;
    if (!c)
        return gf_err(GF_EINTERNAL, NULL, "no output format");
    return c->encode(im, o, out, len);
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
