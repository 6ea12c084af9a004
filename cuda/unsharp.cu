/* unsharp.cu - the unsharp mask's launchers (gaussian.h): the Gaussian's
 * rule (cuda/gaussian.cuh) with the sharpening as its last step. */
#include "gaussian.cuh"

static int unsharp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                        void *stream)
{
    const gf_unsharp_params *p = GF_CPARAMS(s, gf_unsharp_params);
    const int k = gf_gauss_ksize(p->g.sigma, 0, in->bits), max = (int)gf_sample_max(in->bits);
    cudaStream_t st = (cudaStream_t)stream;
    int rc = GF_EINTERNAL;

#define LAUNCH(T, C)                                                                          \
    rc = gauss_launch<T, C>(variant, p->g.sigma, k, p->g.border,                              \
                            unsharp_fin_2d{p->amount, p->threshold, max},                     \
                            unsharp_fin<T, C>{in->data, in->pitch, p->amount, p->threshold,   \
                                              max},                                           \
                            in, out, st)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    return rc;
}

extern "C" int gf_unsharp_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                      void *stream)
{
    return unsharp_cuda(s, in, out, GAUSS_GLOBAL, stream);
}

extern "C" int gf_unsharp_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                      void *stream)
{
    return unsharp_cuda(s, in, out, GAUSS_SHARED, stream);
}

extern "C" int gf_unsharp_constant_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                        void *stream)
{
    return unsharp_cuda(s, in, out, GAUSS_CONSTANT, stream);
}

extern "C" int gf_unsharp_register_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                        void *stream)
{
    return unsharp_cuda(s, in, out, GAUSS_REGISTER, stream);
}
