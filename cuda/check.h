/* check.h - GF_CUDA_CHECK: turn a failed CUDA runtime call into a recorded
 * gpufilt error (GF_EINTERNAL, "CUDA error at file:line: name: text") that
 * the enclosing function returns. Never exits. */
#ifndef GF_CHECK_H
#define GF_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "../src/gf.h"

#define GF_CUDA_CHECK(call)                                                                   \
    do {                                                                                      \
        cudaError_t gf_e_ = (call);                                                           \
        if (gf_e_ != cudaSuccess)                                                             \
            return gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__,        \
                          __LINE__, cudaGetErrorName(gf_e_), cudaGetErrorString(gf_e_));      \
    } while (0)

/* Calls CALL(T, C) with the sample type T (uint8_t or uint16_t) and the
 * channel count C (1..4, a constant) of a layout, in a switch: each kernel
 * template is instantiated once per layout its stage takes. An invalid
 * layout calls nothing. */
#define GF_LAYOUT_SWITCH(channels, bits, CALL)                                                \
    switch (((bits) == 16 ? 4 : 0) + (channels) - 1) {                                        \
    case 0: CALL(uint8_t, 1); break;                                                          \
    case 1: CALL(uint8_t, 2); break;                                                          \
    case 2: CALL(uint8_t, 3); break;                                                          \
    case 3: CALL(uint8_t, 4); break;                                                          \
    case 4: CALL(uint16_t, 1); break;                                                         \
    case 5: CALL(uint16_t, 2); break;                                                         \
    case 6: CALL(uint16_t, 3); break;                                                         \
    case 7: CALL(uint16_t, 4); break;                                                         \
    default: break;                                                                           \
    }

/* The current device's multiprocessor count into *sms, asked of CUDA once
 * per device (gpufilt's kernels run on one device per process). Returns 0
 * or GF_EINTERNAL. */
int gf_cuda_sms(int *sms);

/* Into *bytes, the most shared memory a block of the current device may ask
 * for (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on an H100, 64 KiB
 * on sm_75), asked of CUDA once per device. Returns 0 or GF_EINTERNAL. */
int gf_cuda_smem_optin(int *bytes);

/* Into *blocks, the blocks of `threads` threads and `smem` bytes of dynamic
 * shared memory that `kernel` keeps resident on the whole current device at
 * once (at least 1); asked of CUDA once per kernel and shape (for the first
 * 128 of them; later ones each call). Returns 0 or
 * GF_EINTERNAL. */
int gf_cuda_resident(const void *kernel, int threads, size_t smem, int *blocks);

#endif
