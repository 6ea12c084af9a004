/* crop.cu - the crop stage on the device (src/stages/crop.h): the region's
 * rows, one 2-D device-to-device copy; no kernel of its own. */
#include "check.h"

#include "../src/stages/crop.h"

extern "C" int gf_crop_copy_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                 void *stream)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    int x, y, w, h, rc;

    if (gf_crop_of(s, in->width, in->height, &x, &y, &w, &h))
        return gf_err(GF_EINTERNAL, NULL, "crop: the region lies outside the %dx%d image",
                      in->width, in->height);
    const gf_shape os = {w, h, in->channels, in->bits};
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    GF_CUDA_CHECK(cudaMemcpy2DAsync(out->data, out->pitch,
                                    in->data + (size_t)y * in->pitch + (size_t)x * px, in->pitch,
                                    (size_t)w * px, (size_t)h, cudaMemcpyDeviceToDevice,
                                    (cudaStream_t)stream));
    return 0;
}
