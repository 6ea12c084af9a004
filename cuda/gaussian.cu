/* gaussian.cu - the Gaussian blur's launchers (gaussian.h) on the stencil
 * framework: the rule is cuda/gaussian.cuh's. */
#include "gaussian.cuh"

/* The register schedule's launch for radius R: a strip of 128 threads (512
 * samples) where the halo is 16 samples, else 256. */
template <typename T, int C, int R>
static int gauss_register_as(const gauss_wreg &wt, const gr_fin &fin, const gf_dimage *in,
                             gf_dimage *out, gf_border b, cudaStream_t st)
{
    typedef typename gr_traits<T>::row H;
    constexpr int HALO = (R * C + 15) / 16 * 16, THREADS = HALO <= 16 ? 128 : 256;
    constexpr int SW = GR_STRIP(THREADS) - 2 * HALO;
    const size_t smem = 2 * GR_ROWS * GR_PSTRIP(THREADS) * sizeof(H);
    const gf_shape sh = gf_dimage_shape_of(in);
    const int w = in->width, h = in->height, n = w * C;
    /* rows a strip: the halo rows a small part of the strip's loads (L2 keeps
     * the rest) */
    const int rows = max(64, 8 * R);
    int rc;

    if ((rc = gf_dimage_shape(out, &sh)) ||
        (rc = st_allow_smem(gauss_register_kernel<T, C, R, THREADS>, smem)))
        return rc;
    dim3 grid((n + SW - 1) / SW, (h + rows - 1) / rows);
    gauss_register_kernel<T, C, R, THREADS><<<grid, THREADS, smem, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, b, rows, wt, fin);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* R as a constant, from 1 up to GR_MAX_R8 (8-bit) or GR_MAX_R16 (16-bit),
 * and R C (the row window's reach in samples) up to GR_MAX_RC. */
template <typename T, int C, int R = 1>
static int gauss_register_r(int r, const gauss_wreg &wt, const gr_fin &fin, const gf_dimage *in,
                            gf_dimage *out, gf_border b, cudaStream_t st)
{
    constexpr int MAXR = sizeof(T) == 1 ? GR_MAX_R8 : GR_MAX_R16;
    if constexpr (R > MAXR || R * C > GR_MAX_RC) {
        return 1;
    } else {
        if (r == R)
            return gauss_register_as<T, C, R>(wt, fin, in, out, b, st);
        return gauss_register_r<T, C, R + 1>(r, wt, fin, in, out, b, st);
    }
}

template <typename T, int C>
int gauss_register_run(int r, const gauss_wreg &wt, const gr_fin &fin, const gf_dimage *in,
                       gf_dimage *out, gf_border b, cudaStream_t st)
{
    return gauss_register_r<T, C>(r, wt, fin, in, out, b, st);
}

#define INSTANTIATE(T, C)                                                                     \
    template int gauss_register_run<T, C>(int, const gauss_wreg &, const gr_fin &,              \
                                          const gf_dimage *, gf_dimage *, gf_border,           \
                                          cudaStream_t);
INSTANTIATE(uint8_t, 1)
INSTANTIATE(uint8_t, 2)
INSTANTIATE(uint8_t, 3)
INSTANTIATE(uint8_t, 4)
INSTANTIATE(uint16_t, 1)
INSTANTIATE(uint16_t, 2)
INSTANTIATE(uint16_t, 3)
INSTANTIATE(uint16_t, 4)
#undef INSTANTIATE

static int gauss_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                      void *stream)
{
    const gf_gauss_params *p = GF_CPARAMS(s, gf_gauss_params);
    const int k = gf_gauss_ksize(p->sigma, p->k, in->bits);
    cudaStream_t st = (cudaStream_t)stream;
    int rc = GF_EINTERNAL;

#define LAUNCH(T, C)                                                                          \
    rc = gauss_launch<T, C>(variant, p->sigma, k, p->border, gauss_fin_2d{}, gauss_fin{}, in,   \
                            out, st)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    return rc;
}

extern "C" int gf_gauss_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return gauss_cuda(s, in, out, GAUSS_GLOBAL, stream);
}

extern "C" int gf_gauss_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return gauss_cuda(s, in, out, GAUSS_SHARED, stream);
}

extern "C" int gf_gauss_constant_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                      void *stream)
{
    return gauss_cuda(s, in, out, GAUSS_CONSTANT, stream);
}

extern "C" int gf_gauss_register_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                      void *stream)
{
    return gauss_cuda(s, in, out, GAUSS_REGISTER, stream);
}
