/* common.c - size limits and sample conversion, shared by the per-format
 * decoders (common.h). */
#include "common.h"

int gf_check_size(const char *name, const char *fmt, uint64_t w, uint64_t h, int channels,
                  int bits, const gf_limits *lim)
{
    if (w < 1 || h < 1)
        return gf_err(GF_EDATA, name, "%s image of %llux%llu pixels is empty", fmt,
                      (unsigned long long)w, (unsigned long long)h);
    if (w > GF_MAX_DIM || h > GF_MAX_DIM)
        return gf_err(GF_EDATA, name, "%s image of %llux%llu exceeds the largest side, %d", fmt,
                      (unsigned long long)w, (unsigned long long)h, GF_MAX_DIM);
    if (w * h > lim->max_pixels)
        return gf_err(GF_EDATA, name, "%s image of %llux%llu pixels exceeds --max-pixels %llu",
                      fmt, (unsigned long long)w, (unsigned long long)h,
                      (unsigned long long)lim->max_pixels);
    if (w * h * GF_PIXEL_BYTES(channels, bits) > lim->max_image_bytes)
        return gf_err(GF_EDATA, name,
                      "%s image of %llux%llu %s takes %llu bytes, over --max-image-bytes %llu",
                      fmt, (unsigned long long)w, (unsigned long long)h,
                      gf_layout_words(channels, bits),
                      (unsigned long long)(w * h * GF_PIXEL_BYTES(channels, bits)),
                      (unsigned long long)lim->max_image_bytes);
    return 0;
}

int gf_scale_samples(const unsigned char *src, int in_bits, int be, unsigned maxval, size_t n,
                     unsigned char *dst, int out_bits)
{
    const unsigned max = gf_sample_max(out_bits);
    uint16_t *d16 = (uint16_t *)(void *)dst;

    for (size_t i = 0; i < n; i++) {
        unsigned v = in_bits == 8 ? src[i]
                     : be         ? (unsigned)src[2 * i] << 8 | src[2 * i + 1]
                                  : ((const uint16_t *)(const void *)src)[i];
        if (v > maxval)
            return -1;
        if (maxval != max)
            v = (unsigned)(((uint64_t)v * max + maxval / 2) / maxval);
        if (out_bits == 8)
            dst[i] = (unsigned char)v;
        else
            d16[i] = (uint16_t)v;
    }
    return 0;
}
