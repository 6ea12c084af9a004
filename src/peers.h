/* peers.h - library peers for gpufilt bench (cuda/peers.cu, and with
 * `make PEERS=1` on a machine with NPP and cuBLAS, cuda/npp_peers.cu). */
#ifndef GF_PEERS_H
#define GF_PEERS_H

#include <stddef.h>

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUB's DeviceHistogram::HistogramEven of in (device) into hist (device,
 * 256 counts): 257 levels from 0 to 256. Call with temp NULL to get
 * *temp_bytes, then with a device buffer of that size. */
int gf_cub_hist(const gf_dimage *in, unsigned *hist, void *temp, size_t *temp_bytes,
                void *stream);

#ifdef __cplusplus
}
#endif

#endif
