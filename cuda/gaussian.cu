/* gaussian.cu - the Gaussian blur's launchers (gaussian.h) on the stencil
 * framework: the rule is cuda/gaussian.cuh's. */
#include "gaussian.cuh"

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
