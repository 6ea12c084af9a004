/* otsu.h - Otsu's threshold of a histogram of 256 or 65536 bins, exact,
 * shared by the CPU (statistics, the threshold stage's reference) and the
 * GPU (the threshold stage's kernels), so both give the same t on every
 * histogram, ties included.
 *
 * N. Otsu, "A threshold selection method from gray-level histograms", IEEE
 * Trans. SMC 9(1), 1979: t maximises the between-class variance of the
 * classes [0, t] and [t+1, max],
 *     w0 w1 (mu0 - mu1)^2 = (s0 N - S w0)^2 / (w0 w1) / N^2,
 * with w0, s0 the pixel count and value sum of [0, t], w1 = N - w0, and S
 * the sum of all values. The fractions are compared by cross-multiplying:
 * with N < 2^33 pixels and values below 2^16 every term fits in 256 bits.
 * The smallest t wins a tie; t is 0 when no t splits the pixels (one
 * value, or none). */
#ifndef GF_OTSU_H
#define GF_OTSU_H

#include <stdint.h>

#ifdef __CUDACC__
#define GF_OTSU_FN __host__ __device__ __forceinline__
#else
#define GF_OTSU_FN static inline
#endif

/* Unsigned integers of 8 32-bit limbs, least significant first. */
typedef struct gf_u256 {
    uint32_t l[8];
} gf_u256;

GF_OTSU_FN gf_u256 gf_u256_from(uint64_t v)
{
    gf_u256 r;
    for (int i = 0; i < 8; i++)
        r.l[i] = 0;
    r.l[0] = (uint32_t)v;
    r.l[1] = (uint32_t)(v >> 32);
    return r;
}

/* a * b mod 2^256 (callers keep products below 2^256). */
GF_OTSU_FN gf_u256 gf_u256_mul(gf_u256 a, gf_u256 b)
{
    gf_u256 r = gf_u256_from(0);
    for (int i = 0; i < 8; i++) {
        uint64_t carry = 0;
        for (int j = 0; i + j < 8; j++) {
            uint64_t t = (uint64_t)a.l[i] * b.l[j] + r.l[i + j] + carry;
            r.l[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    return r;
}

/* a - b for a >= b. */
GF_OTSU_FN gf_u256 gf_u256_sub(gf_u256 a, gf_u256 b)
{
    gf_u256 r;
    int64_t borrow = 0;
    for (int i = 0; i < 8; i++) {
        int64_t t = (int64_t)a.l[i] - b.l[i] - borrow;
        borrow = t < 0;
        r.l[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
    }
    return r;
}

/* -1, 0 or 1 as a <, ==, > b. */
GF_OTSU_FN int gf_u256_cmp(gf_u256 a, gf_u256 b)
{
    for (int i = 7; i >= 0; i--)
        if (a.l[i] != b.l[i])
            return a.l[i] < b.l[i] ? -1 : 1;
    return 0;
}

/* The between-class variance at a split (w0 pixels of value sum s0 below,
 * of n pixels of value sum total), as the fraction *num / *den times N^2.
 * Returns 0 when one class is empty. */
GF_OTSU_FN int gf_otsu_score(uint64_t n, uint64_t total, uint64_t w0, uint64_t s0,
                             gf_u256 *num, gf_u256 *den)
{
    if (w0 == 0 || w0 == n)
        return 0;
    gf_u256 a = gf_u256_mul(gf_u256_from(s0), gf_u256_from(n));
    gf_u256 b = gf_u256_mul(gf_u256_from(total), gf_u256_from(w0));
    gf_u256 d = gf_u256_cmp(a, b) >= 0 ? gf_u256_sub(a, b) : gf_u256_sub(b, a);
    *num = gf_u256_mul(d, d);
    *den = gf_u256_mul(gf_u256_from(w0), gf_u256_from(n - w0));
    return 1;
}

/* The between-class variance at a split, in double: within a few units in
 * the last place of the exact fraction (d below is exact before its
 * conversion), or -1 when one class is empty. */
GF_OTSU_FN double gf_otsu_approx(uint64_t n, uint64_t total, uint64_t w0, uint64_t s0)
{
    if (w0 == 0 || w0 == n)
        return -1.0;
    const unsigned __int128 a = (unsigned __int128)s0 * n, b = (unsigned __int128)total * w0;
    const double d = (double)(a >= b ? a - b : b - a);
    return d * d / ((double)w0 * (double)(n - w0));
}

/* Splits whose double score is within this factor of the best double are
 * compared exactly: the double scores are within 1e-15 of the exact ones,
 * so the exact maximum is always among them. */
#define GF_OTSU_NEAR (1.0 - 1e-9)

/* Otsu's threshold t of bins[nbins] (counts of the values 0 .. nbins-1;
 * nbins 256 or 65536; their sum below 2^33). Every split's score in double
 * first; the splits near the best then by the exact fractions, the
 * smaller t winning a tie. A split at v whose bin v is empty is the split
 * at v-1 again, with the same score, so it never wins and is skipped. */
GF_OTSU_FN int gf_otsu(const uint32_t *bins, int nbins)
{
    uint64_t n = 0, total = 0, w0 = 0, s0 = 0;
    gf_u256 best_num = gf_u256_from(0), best_den = gf_u256_from(1), num, den;
    double top = -1.0;
    int t = 0, found = 0;

    for (int v = 0; v < nbins; v++) {
        n += bins[v];
        total += (uint64_t)v * bins[v];
    }
    for (int v = 0; v < nbins - 1; v++) {
        w0 += bins[v];
        s0 += (uint64_t)v * bins[v];
        const double sc = gf_otsu_approx(n, total, w0, s0);
        top = sc > top ? sc : top;
    }
    if (top < 0)
        return 0; /* no split separates the pixels */
    w0 = s0 = 0;
    for (int v = 0; v < nbins - 1; v++) {
        w0 += bins[v];
        s0 += (uint64_t)v * bins[v];
        if ((v > 0 && !bins[v]) || gf_otsu_approx(n, total, w0, s0) < top * GF_OTSU_NEAR ||
            !gf_otsu_score(n, total, w0, s0, &num, &den))
            continue;
        /* num/den > best_num/best_den  <=>  num * best_den > best_num * den */
        if (!found || gf_u256_cmp(gf_u256_mul(num, best_den), gf_u256_mul(best_num, den)) > 0) {
            best_num = num;
            best_den = den;
            t = v;
            found = 1;
        }
    }
    return t;
}

#endif
