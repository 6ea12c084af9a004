/* webp.c - WebP through libwebp (Debian libwebp-dev): lossy and lossless
 * files, with or without alpha, decode to 8-bit RGB or RGBA bit for bit as
 * libwebp's WebPDecode gives them with its default options (fancy
 * upsampling, no dithering: as dwebp); of an animated file, the first frame
 * as libwebp's WebPAnimDecoder composes it on its canvas (as anim_dump and
 * Pillow give it), with a note on stderr. Encoding by the advanced API
 * (WebPConfig, WebPPicture): 8-bit gray, gray+alpha, RGB and RGBA, gray
 * written as RGB with R = G = B; lossy at a quality, alpha kept losslessly,
 * or lossless with every sample kept, the colour under zero alpha too. The
 * metadata (ICCP, EXIF) is read by walking the RIFF chunks here and written
 * by libwebpmux. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "formats.h"

/* Encoder settings beside the quality: libwebp's defaults (method 4 of 0-6;
 * the lossless effort 75 of 0-100, cwebp -lossless's), on one thread. */
#define WEBP_METHOD 4
#define WEBP_LOSSLESS_EFFORT 75.f

int gf_webp_sniff(const unsigned char *buf, size_t len)
{
    return len >= 12 && !memcmp(buf, "RIFF", 4) && !memcmp(buf + 8, "WEBP", 4);
}

int gf_peek_webp(const unsigned char *buf, size_t len, gf_shape *s)
{
    WebPBitstreamFeatures f;

    if (WebPGetFeatures(buf, len, &f) != VP8_STATUS_OK || f.width < 1 || f.height < 1)
        return -1;
    s->width = f.width;
    s->height = f.height;
    s->channels = f.has_alpha ? 4 : 3;
    s->bits = 8;
    return 0;
}

/* VP8StatusCode in words. */
static const char *status_words(VP8StatusCode st)
{
    switch (st) {
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the data ends early (truncated)";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt data";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "a feature libwebp does not support";
    case VP8_STATUS_INVALID_PARAM: return "an invalid parameter";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    default: return "an unknown error";
    }
}

static int status_error(const char *name, VP8StatusCode st)
{
    if (st == VP8_STATUS_OUT_OF_MEMORY)
        return gf_err(GF_EINTERNAL, name, "out of memory decoding WebP");
    return gf_err(GF_EDATA, name, "cannot decode WebP: %s", status_words(st));
}

/* Decodes the bitstream in (n bytes: a whole file, or an animation frame's
 * ALPH and VP8 or VP8L chunks) into dst, a w x h region of `channels` (3:
 * RGB, 4: RGBA) with `stride` bytes a row, by WebPDecode with its default
 * options. Returns the status. */
static VP8StatusCode decode_into(const uint8_t *in, size_t n, unsigned char *dst, int w, int h,
                                 int channels, size_t stride)
{
    WebPDecoderConfig config;

    if (!WebPInitDecoderConfig(&config))
        return VP8_STATUS_INVALID_PARAM;
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.width = w;
    config.output.height = h;
    config.output.u.RGBA.rgba = dst;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * (size_t)(h - 1) + (size_t)w * (size_t)channels;
    return WebPDecode(in, n, &config);
}

/* The first frame of an animated file, composed as WebPAnimDecoder does:
 * on a canvas of transparent black, the frame decoded at its offset (the
 * first frame blends onto nothing). Prints the note that names how many
 * frames were not read. */
static int decode_first_frame(const char *name, const unsigned char *buf, size_t len,
                              gf_image *out)
{
    WebPData data = {buf, len};
    WebPDemuxer *dmx = WebPDemux(&data);
    WebPIterator it;
    VP8StatusCode st;
    int frames, rc = 0;

    if (!dmx)
        return gf_err(GF_EDATA, name, "cannot decode WebP: the animation's chunks are corrupt "
                                      "or cut short");
    frames = (int)WebPDemuxGetI(dmx, WEBP_FF_FRAME_COUNT);
    if (!WebPDemuxGetFrame(dmx, 1, &it)) {
        WebPDemuxDelete(dmx);
        return gf_err(GF_EDATA, name, "cannot decode WebP: the animation has no frame");
    }
    if (it.x_offset < 0 || it.y_offset < 0 || it.x_offset + it.width > out->width ||
        it.y_offset + it.height > out->height) {
        rc = gf_err(GF_EDATA, name, "cannot decode WebP: the first frame leaves the canvas");
    } else {
        const size_t px = (size_t)out->channels;
        memset(out->data, 0, out->stride * (size_t)out->height);
        st = decode_into(it.fragment.bytes, it.fragment.size,
                         out->data + (size_t)it.y_offset * out->stride + (size_t)it.x_offset * px,
                         it.width, it.height, out->channels, out->stride);
        if (st != VP8_STATUS_OK)
            rc = status_error(name, st);
    }
    WebPDemuxReleaseIterator(&it);
    WebPDemuxDelete(dmx);
    if (rc == 0 && frames > 1)
        fprintf(stderr, "gpufilt: %s: animated WebP: the first of %d frames is read\n", name,
                frames);
    return rc;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One ICCP or EXIF chunk's data d (n bytes; ok 0 when the chunk runs past
 * the end of the RIFF data or the file): the EXIF's Orientation, and with
 * GF_DECODE_META the profile or the EXIF kept in info (meta.h's checks),
 * or dropped with a warning. *seen counts the chunks of its kind so far:
 * the first alone is taken. */
static int meta_chunk(const char *name, int is_icc, const unsigned char *d, size_t n, int ok,
                      int flags, int *seen, gf_load_info *info)
{
    const char *why = !ok ? (is_icc ? "its ICCP chunk runs past the end of the file"
                                    : "its EXIF chunk runs past the end of the file")
                      : *seen ? (is_icc ? "a second ICCP chunk" : "a second EXIF chunk")
                              : NULL;

    ++*seen;
    if (why) {
        if (flags & GF_DECODE_META) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s dropped: %s", is_icc ? "ICC profile" : "EXIF", why);
            gf_meta_warn(name, msg);
        }
        return 0;
    }
    if (!is_icc)
        info->orientation = gf_exif_orientation_or_1(d, n);
    if (!(flags & GF_DECODE_META))
        return 0;
    return is_icc ? gf_meta_keep_icc(&info->meta, name, d, n)
                  : gf_meta_keep_exif(&info->meta, name, d, n);
}

/* The EXIF Orientation of an extended file's (VP8X) EXIF chunk, and with
 * GF_DECODE_META in flags its ICCP and EXIF chunks kept in info->meta,
 * found by walking the RIFF chunks here rather than by libwebp's demuxer,
 * which refuses a whole file for one chunk it does not like (the image
 * decodes, the metadata would go unsaid). A chunk is taken whether or not
 * the VP8X flags announce it, as Pillow takes it. */
static int read_meta(const char *name, const unsigned char *buf, size_t len, int flags,
                     gf_load_info *info)
{
    size_t end = len, p = 12;
    int icc_seen = 0, exif_seen = 0, rc = 0;

    if (len < 16 || memcmp(buf + 12, "VP8X", 4))
        return 0; /* a simple file holds no metadata */
    if ((uint64_t)le32(buf + 4) + 8 < end)
        end = (size_t)le32(buf + 4) + 8; /* what follows the RIFF data is not the file's */
    while (rc == 0 && end - p >= 8) {
        const size_t n = le32(buf + p + 4);
        const int icc = !memcmp(buf + p, "ICCP", 4), exif = !memcmp(buf + p, "EXIF", 4),
                  whole = n <= end - p - 8;
        if (icc || exif)
            rc = meta_chunk(name, icc, buf + p + 8, whole ? n : 0, whole, flags,
                            icc ? &icc_seen : &exif_seen, info);
        if (!whole)
            break;
        p += 8 + n + (n & 1);
        if (p > end)
            break;
    }
    return rc;
}

static int decode_image(const char *name, const unsigned char *buf, size_t len,
                        const gf_limits *lim, gf_image *out);

int gf_decode_webp(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info)
{
    int rc; /* GF_DECODE_LUMA: a WebP decodes as always */

    info->format = "webp";
    if ((rc = decode_image(name, buf, len, lim, out)))
        return rc;
    return read_meta(name, buf, len, flags, info);
}

/* gf_decode_webp's image. */
static int decode_image(const char *name, const unsigned char *buf, size_t len,
                        const gf_limits *lim, gf_image *out)
{
    WebPBitstreamFeatures f;
    VP8StatusCode st;
    int channels, rc;

    if ((st = WebPGetFeatures(buf, len, &f)) != VP8_STATUS_OK)
        return status_error(name, st);
    channels = f.has_alpha ? 4 : 3;
    if ((rc = gf_check_size(name, "WebP", (uint64_t)f.width, (uint64_t)f.height, channels, 8,
                            lim)) ||
        (rc = gf_image_alloc(out, f.width, f.height, channels, 8)))
        return rc;
    if (f.has_animation)
        return decode_first_frame(name, buf, len, out);
    st = decode_into(buf, len, out->data, f.width, f.height, channels, out->stride);
    return st == VP8_STATUS_OK ? 0 : status_error(name, st);
}

/* WebPEncodingError in words. */
static const char *encode_words(WebPEncodingError e)
{
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimensions";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition overflowed (lower --quality)";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would exceed 4 GiB";
    default: return "encoding failed";
    }
}

/* m's ICC profile and EXIF as ICCP and EXIF chunks of the file in *out
 * (*len bytes, malloc'd), by libwebpmux, which makes it an extended (VP8X)
 * file; nothing when m has neither. 0, or GF_EINTERNAL (*out freed). */
static int add_meta(unsigned char **out, size_t *len, const gf_meta *m)
{
    const int icc = m && m->icc && m->icc_len, exif = m && m->exif && m->exif_len;
    WebPData in = {*out, *len}, chunk, res = {NULL, 0};
    WebPMux *mux;
    int ok;

    if (!icc && !exif)
        return 0;
    ok = (mux = WebPMuxCreate(&in, 0)) != NULL;
    if (ok && icc) {
        chunk.bytes = m->icc;
        chunk.size = m->icc_len;
        ok = WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK;
    }
    if (ok && exif) {
        chunk.bytes = m->exif;
        chunk.size = m->exif_len;
        ok = WebPMuxSetChunk(mux, "EXIF", &chunk, 0) == WEBP_MUX_OK;
    }
    ok = ok && WebPMuxAssemble(mux, &res) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    free(*out);
    *out = ok ? malloc(res.size ? res.size : 1) : NULL;
    if (*out)
        memcpy(*out, res.bytes, res.size);
    *len = *out ? res.size : 0;
    WebPDataClear(&res);
    return *out ? 0 : gf_err(GF_EINTERNAL, NULL, "WebP encoder: cannot add the metadata");
}

int gf_encode_webp(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    const int alpha = im->channels == 2 || im->channels == 4;
    WebPConfig config;
    WebPPicture pic;
    WebPMemoryWriter wr;
    unsigned char *rgb = NULL;
    const unsigned char *src = im->data;
    size_t stride = im->stride;
    int ok, rc = 0;

    if (im->bits != 8)
        return gf_err(GF_EUSAGE, NULL,
                      "WebP holds 8-bit samples, not a %s image: put --depth 8 before the "
                      "output, or write PNG",
                      gf_layout_words(im->channels, im->bits));
    if (im->width > WEBP_MAX_DIMENSION || im->height > WEBP_MAX_DIMENSION)
        return gf_err(GF_EUSAGE, NULL,
                      "WebP holds at most %dx%d pixels, not %dx%d: write PNG, or crop it",
                      WEBP_MAX_DIMENSION, WEBP_MAX_DIMENSION, im->width, im->height);
    if (!WebPConfigInit(&config) || !WebPPictureInit(&pic))
        return gf_err(GF_EINTERNAL, NULL, "WebP encoder: libwebp's version mismatch");
    config.lossless = o->lossless != 0;
    config.quality = o->lossless ? WEBP_LOSSLESS_EFFORT : (float)o->quality;
    config.method = WEBP_METHOD;
    config.exact = o->lossless != 0; /* the colour under zero alpha as it is */
    config.alpha_quality = 100;      /* alpha losslessly in a lossy file too */
    config.thread_level = 0;
    if (!WebPValidateConfig(&config))
        return gf_err(GF_EINTERNAL, NULL, "WebP encoder: invalid settings");
    if (im->channels <= 2) { /* gray as RGB(A) with R = G = B */
        const size_t w = (size_t)im->width, oc = alpha ? 4 : 3;
        if (!(rgb = malloc(w * oc * (size_t)im->height)))
            return gf_err(GF_EINTERNAL, NULL, "out of memory encoding WebP");
        for (int y = 0; y < im->height; y++) {
            const unsigned char *s = im->data + (size_t)y * im->stride;
            unsigned char *d = rgb + (size_t)y * w * oc;
            for (size_t x = 0; x < w; x++, d += oc) {
                d[0] = d[1] = d[2] = s[x * (size_t)im->channels];
                if (alpha)
                    d[3] = s[x * 2 + 1];
            }
        }
        src = rgb;
        stride = w * oc;
    }
    pic.use_argb = config.lossless; /* lossy: straight to YUV(A) */
    pic.width = im->width;
    pic.height = im->height;
    ok = alpha ? WebPPictureImportRGBA(&pic, src, (int)stride)
               : WebPPictureImportRGB(&pic, src, (int)stride);
    free(rgb);
    if (!ok) {
        WebPPictureFree(&pic);
        return gf_err(GF_EINTERNAL, NULL, "out of memory encoding WebP");
    }
    WebPMemoryWriterInit(&wr);
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &wr;
    if (!WebPEncode(&config, &pic)) {
        rc = gf_err(GF_EINTERNAL, NULL, "WebP encoder: %s", encode_words(pic.error_code));
    } else if (!(*out = malloc(wr.size ? wr.size : 1))) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory encoding WebP");
    } else {
        memcpy(*out, wr.mem, wr.size);
        *len = wr.size;
        rc = add_meta(out, len, o->meta);
    }
    WebPMemoryWriterClear(&wr);
    WebPPictureFree(&pic);
    return rc;
}
