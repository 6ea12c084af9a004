/* decode.c - reading and decoding images: the format by its signature,
 * from the registry (registry.h), then its decoder (codec.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "meta.h"
#include "registry.h"

static int unknown_format(const char *name)
{
    char list[256];

    return gf_err(GF_EDATA, name, "unknown image format (%s are read)",
                  gf_codec_list(list, sizeof list, 0, 0, GF_ITEM_LABEL, ", ", " and "));
}

int gf_input_need(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  uint64_t *need)
{
    const gf_codec *c = gf_codec_sniff(buf, len);
    gf_shape sh;
    int rc;

    *need = UINT64_MAX;
    if (len == 0)
        return 0; /* gf_decode says it is empty */
    if (!c)
        return unknown_format(name);
    if (c->traits & GF_CODEC_WHOLE) {
        /* the size of the first page, when its directory is in buf already */
        if (lim->page == 0 && c->peek(buf, len, &sh) == 0)
            return gf_check_size(name, c->label, (uint64_t)sh.width, (uint64_t)sh.height,
                                 sh.channels, sh.bits, lim);
        return 0;
    }
    if (c->peek(buf, len, &sh))
        return 1;
    if ((rc = gf_check_size(name, c->label, (uint64_t)sh.width, (uint64_t)sh.height, sh.channels,
                            sh.bits, lim)))
        return rc;
    *need = 2 * (uint64_t)sh.width * (uint64_t)sh.height * GF_PIXEL_BYTES(sh.channels, sh.bits) +
            GF_INPUT_SLACK;
    return 0;
}

int gf_read_image(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len)
{
    return gf_read_input(path, lim, gf_input_need, buf, len);
}

int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              int flags, gf_image *out, gf_load_info *info)
{
    const gf_codec *c = gf_codec_sniff(buf, len);
    int rc;

    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    info->orientation = 1;
    if (len == 0)
        return gf_err(GF_EDATA, name, "empty file");
    if (!c)
        return unknown_format(name);
    if (lim->page && !(c->traits & GF_CODEC_PAGES))
        return gf_err(GF_EDATA, name, "%s has one page; --page %u does not exist", c->label,
                      lim->page);
    rc = c->decode(name, buf, len, lim, flags, out, info);
    if (rc) {
        gf_image_free(out);
        gf_meta_free(&info->meta);
    } else {
        info->channels = out->channels;
        info->bits = out->bits;
        /* a profile of another colour space than the file's image; a JPEG
         * decoded as its luma alone keeps its colour profile, for the
         * output to leave out; a format that stores gray as RGB may carry a
         * gray profile (as Pillow and gpufilt write a gray image to WebP) */
        if (!(flags & GF_DECODE_LUMA))
            gf_meta_fit(&info->meta, name,
                        (c->traits & GF_CODEC_GRAY_AS_RGB) && gf_meta_gray(&info->meta)
                            ? 1
                            : out->channels);
    }
    return rc;
}

int gf_peek_size(const unsigned char *buf, size_t len, gf_shape *shape)
{
    const gf_codec *c = gf_codec_sniff(buf, len);
    return c ? c->peek(buf, len, shape) : -1;
}

int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info)
{
    unsigned char *buf;
    size_t n;
    int rc = gf_read_image(path, lim, &buf, &n);

    if (rc)
        return rc;
    rc = gf_decode(strcmp(path, "-") ? path : "(stdin)", buf, n, lim, 0, out, info);
    free(buf);
    return rc;
}
