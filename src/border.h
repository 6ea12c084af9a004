/* border.h - border modes for neighbourhood stages, shared by the CPU
 * reference (C) and the kernels (CUDA), so both index borders identically.
 *
 * A stage reads the padded image P(x, y) for any integer x, y:
 *   replicate   P = I(clamp(x), clamp(y))            aaa|abcd|ddd
 *   reflect101  P = I(r(x), r(y)), edge not repeated  cb|abcd|cb
 *   constant    P = V outside the image               VV|abcd|VV
 * The names and definitions are OpenCV's BORDER_REPLICATE, BORDER_REFLECT_101
 * and BORDER_CONSTANT (ImageMagick's "edge" virtual pixels are replicate). */
#ifndef GF_BORDER_H
#define GF_BORDER_H

#ifdef __CUDACC__
#define GF_HD __host__ __device__ __forceinline__
#else
#define GF_HD static inline
#endif

typedef enum gf_border_mode {
    GF_BORDER_REPLICATE = 0,
    GF_BORDER_REFLECT101 = 1,
    GF_BORDER_CONSTANT = 2,
} gf_border_mode;

typedef struct gf_border {
    gf_border_mode mode;
    int value; /* a sample, 0..255 (8-bit) or 0..65535 (16-bit): GF_BORDER_CONSTANT only;
                  every channel of the padding pixels */
} gf_border;

/* Maps coordinate i (any int) onto [0, n) for an axis of n >= 1 pixels, or
 * returns -1 where the constant border applies. reflect101 is periodic with
 * period 2n - 2, so any distance from the image works; for n == 1 every i maps
 * to 0 (OpenCV's borderInterpolate does the same). */
GF_HD int gf_border_index(int i, int n, gf_border_mode mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == GF_BORDER_CONSTANT)
        return -1;
    if (mode == GF_BORDER_REPLICATE || n == 1)
        return i < 0 ? 0 : n - 1;
    {
        int period = 2 * n - 2;
        int m = i % period;
        if (m < 0)
            m += period;
        return m < n ? m : period - m;
    }
}

#endif
