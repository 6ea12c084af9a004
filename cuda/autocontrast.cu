/* autocontrast.cu - --autocontrast's tables on the device (src/stages/
 * tone.h): each channel's histogram by the histogram stage's kernel, then a
 * block per colour channel makes its table by Pillow's rule with the
 * arithmetic of tone.h, so the bytes equal the CPU's.
 *
 * Pillow takes its cuts bin by bin (src/stages/autocontrast.c follows it);
 * here they come from the running counts C(v) (pixels of values 0 .. v) at
 * once. The low cut of `cut` pixels ends at b, the first bin with C(b) >=
 * cut, which keeps C(b) - cut; the high cut of cut2 then ends at e, the
 * last bin above b with n - C(e - 1) >= cut2, which keeps n - C(e - 1) -
 * cut2, or at b itself (cut + cut2 < n, so it never passes b), which then
 * keeps n - cut - cut2. Bins below b and above e are emptied. lo and hi are
 * the least and greatest bins left with pixels. */
#include "check.h"
#include "lut.cuh"

#include "../src/stages/tone.h"

template <typename T>
__global__ void __launch_bounds__(lut_shape<T>::THREADS)
    autocontrast_table_kernel(const unsigned *__restrict__ hist, double low, double high,
                              T *__restrict__ tables)
{
    using S = lut_shape<T>;
    const unsigned *h = hist + (size_t)blockIdx.x * S::NB;
    T *lut = tables + (size_t)blockIdx.x * S::NB;
    const int v0 = threadIdx.x * S::PER;
    unsigned long long sum = 0, n;

    for (int i = 0; i < S::PER; i++)
        sum += h[v0 + i];
    const unsigned long long before = lut_block_scan<S::THREADS>(sum, &n);
    const unsigned long long cut = gf_autocontrast_cut(n, low), cut2 = gf_autocontrast_cut(n, high);
    unsigned long long acc = before;
    int b = S::NB, e = -1, lo = S::NB, hi = -1;

    for (int i = 0; i < S::PER; i++) { /* b */
        acc += h[v0 + i];
        if (acc >= cut && b == S::NB)
            b = v0 + i;
    }
    b = lut_block_extreme<S::THREADS, false>(b);
    acc = before;
    for (int i = 0; i < S::PER; i++) { /* e */
        if (v0 + i > b && n - acc >= cut2)
            e = v0 + i;
        acc += h[v0 + i];
    }
    e = lut_block_extreme<S::THREADS, true>(e);
    if (e < 0)
        e = b;
    acc = before;
    for (int i = 0; i < S::PER; i++) { /* what each bin keeps: lo and hi */
        const int v = v0 + i;
        const unsigned long long below = acc; /* C(v - 1) */
        acc += h[v];
        const unsigned long long kept = v < b   ? 0
                                        : v == b ? (e == b ? n - cut - cut2 : acc - cut)
                                        : v < e  ? h[v]
                                        : v == e ? n - below - cut2
                                                 : 0;
        if (kept) {
            lo = min(lo, v);
            hi = max(hi, v);
        }
    }
    lo = lut_block_extreme<S::THREADS, false>(lo);
    hi = lut_block_extreme<S::THREADS, true>(hi);
    if (lo == S::NB) /* none: as Python's loops end */
        lo = S::NB - 1, hi = 0;
    if (hi <= lo) {
        for (int i = 0; i < S::PER; i++)
            lut[v0 + i] = (T)(v0 + i);
        return;
    }
    double scale, offset;
    gf_autocontrast_line(S::MAX, lo, hi, &scale, &offset);
    for (int i = 0; i < S::PER; i++)
        lut[v0 + i] = (T)gf_autocontrast_entry((unsigned)(v0 + i), scale, offset, S::MAX);
}

extern "C" int gf_autocontrast_tables_cuda(const gf_stage *s, const gf_dimage *in, void *tables,
                                           void *stream)
{
    const gf_autocontrast_params *p = GF_CPARAMS(s, gf_autocontrast_params);
    cudaStream_t st = (cudaStream_t)stream;
    const int colours = gf_lut_colours(in->channels);

    return lut_tables_from_hist(in, st, [&](const unsigned *hist) {
        if (in->bits == 8)
            autocontrast_table_kernel<uint8_t><<<colours, lut_shape<uint8_t>::THREADS, 0, st>>>(
                hist, p->low, p->high, (uint8_t *)tables);
        else
            autocontrast_table_kernel<uint16_t><<<colours, lut_shape<uint16_t>::THREADS, 0, st>>>(
                hist, p->low, p->high, (uint16_t *)tables);
    });
}
