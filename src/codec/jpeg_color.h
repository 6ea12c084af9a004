/* jpeg_color.h - libjpeg-turbo's default decompression of a colour JPEG
 * from its decoded planes to RGB, written once for the CPU's check and the
 * GPU's kernel (cuda/nvjpeg.cu), so that a JPEG whose planes nvJPEG decodes
 * gives the same RGB as libjpeg-turbo does. The rules are libjpeg-turbo
 * 2.1's (jdsample.c, jdcolor.c, jdmainct.c), restated here:
 *
 * - Chroma upsampling, "fancy" (the default): 2:1 horizontal (4:2:2) is a
 *   triangle filter, output 2j = (3 c[j] + c[j-1] + 1) >> 2 and output
 *   2j+1 = (3 c[j] + c[j+1] + 2) >> 2; 2:1 vertical (4:4:0) the same down
 *   the column, with biases 1 (upper output row) and 2 (lower); 2:1 both
 *   ways (4:2:0) sums s = 3 c[i] + c[i +- 1] down the column first, then
 *   (3 s[j] + s[j-1] + 8) >> 4 and (3 s[j] + s[j+1] + 7) >> 4 along the row.
 *   A neighbour outside the plane is the edge sample itself (libjpeg-turbo
 *   duplicates the first and last real rows as context, and its first and
 *   last column cases equal that). When the chroma plane is at most 2
 *   samples wide, 2:1 horizontal falls back to replication, as
 *   libjpeg-turbo does; other ratios (4:1:1) are always replication.
 * - YCbCr to RGB (ITU-R BT.601, JFIF): with x = Cb - 128 or Cr - 128 and
 *   16-bit fixed-point constants FIX(v) = round(v * 65536),
 *   R = Y + ((FIX(1.402) x_r + 32768) >> 16),
 *   B = Y + ((FIX(1.772) x_b + 32768) >> 16),
 *   G = Y + ((-FIX(0.34414) x_b + 32768 - FIX(0.71414) x_r) >> 16),
 *   each clamped to 0..255 (arithmetic shifts).
 * tests/unit/test_codec.c checks these against libjpeg-turbo's own RGB on
 * every subsampling at odd sizes. */
#ifndef GF_JPEG_COLOR_H
#define GF_JPEG_COLOR_H

#include <stddef.h>

#include "../border.h" /* GF_HD */

/* A decoded chroma plane: cw x ch samples (the component's own size,
 * ceil(width / hs) x ceil(height / vs)), pitch bytes between rows, of an
 * image subsampled hs x vs (1, 2 or 4 each). */
typedef struct gf_jpeg_plane {
    const unsigned char *data;
    size_t pitch;
    int cw, ch, hs, vs;
} gf_jpeg_plane;

GF_HD int gf_jpeg_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The neighbour of index i towards the odd side (i + 1) or the even side
 * (i - 1), clamped to 0 .. n-1: the edge sample stands for one outside. */
GF_HD int gf_jpeg_next(int i, int odd, int n)
{
    return gf_jpeg_clampi(odd ? i + 1 : i - 1, 0, n - 1);
}

/* The chroma sample of plane p at output pixel (x, y), upsampled as
 * libjpeg-turbo's fancy upsampling gives it. */
GF_HD int gf_jpeg_chroma(const gf_jpeg_plane *p, int x, int y)
{
    const unsigned char *d = p->data;
    const size_t pt = p->pitch;

    if (p->hs == 1 && p->vs == 1)
        return d[(size_t)y * pt + x];
    if (p->hs == 2 && p->vs == 1 && p->cw > 2) { /* h2v1 */
        const int j = x >> 1, n = gf_jpeg_next(j, x & 1, p->cw);
        const unsigned char *r = d + (size_t)y * pt;
        return (3 * r[j] + r[n] + (x & 1 ? 2 : 1)) >> 2;
    }
    if (p->hs == 1 && p->vs == 2) { /* h1v2 */
        const int i = y >> 1, f = gf_jpeg_next(i, y & 1, p->ch);
        return (3 * d[(size_t)i * pt + x] + d[(size_t)f * pt + x] + (y & 1 ? 2 : 1)) >> 2;
    }
    if (p->hs == 2 && p->vs == 2 && p->cw > 2) { /* h2v2 */
        const int i = y >> 1, f = gf_jpeg_next(i, y & 1, p->ch);
        const int j = x >> 1, n = gf_jpeg_next(j, x & 1, p->cw);
        const unsigned char *ri = d + (size_t)i * pt, *rf = d + (size_t)f * pt;
        const int sj = 3 * ri[j] + rf[j], sn = 3 * ri[n] + rf[n];
        return (3 * sj + sn + (x & 1 ? 7 : 8)) >> 4;
    }
    return d[(size_t)(y / p->vs) * pt + x / p->hs]; /* replication */
}

/* The RGB of luma y and upsampled chroma cb, cr (0..255 each), into
 * rgb[0..2]. */
GF_HD void gf_jpeg_ycc_rgb(int y, int cb, int cr, unsigned char *rgb)
{
    const int xb = cb - 128, xr = cr - 128;
    rgb[0] = (unsigned char)gf_jpeg_clampi(y + ((91881 * xr + 32768) >> 16), 0, 255);
    rgb[1] =
        (unsigned char)gf_jpeg_clampi(y + ((-22554 * xb + 32768 - 46802 * xr) >> 16), 0, 255);
    rgb[2] = (unsigned char)gf_jpeg_clampi(y + ((116130 * xb + 32768) >> 16), 0, 255);
}

/* The chroma subsampling hs x vs of TurboJPEG's TJSAMP_* s (444, 422,
 * 420, 440, 411 as 0, 1, 2, 4, 5); 0 for gray or one it has no factors
 * for. */
GF_HD int gf_jpeg_sampling(int s, int *hs, int *vs)
{
    switch (s) {
    case 0: *hs = 1, *vs = 1; return 1;
    case 1: *hs = 2, *vs = 1; return 1;
    case 2: *hs = 2, *vs = 2; return 1;
    case 4: *hs = 1, *vs = 2; return 1;
    case 5: *hs = 4, *vs = 1; return 1;
    default: return 0;
    }
}

#endif
