/* project.h - projection profiles: --colsum FILE (one sum per column and
 * channel, the vertical profile) and --rowsum FILE (one sum per row and
 * channel, the horizontal profile). Shared by src/stages/project.c and
 * cuda/project.cu. Sums are exact integers in 32 bits: no side exceeds
 * GF_MAX_DIM (65535), so no sum exceeds 65535 * 65535 < 2^32. */
#ifndef GF_PROJECT_H
#define GF_PROJECT_H

#include <stdint.h>

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column sums (width x channels values: channel c of column x at
 * sums[x * channels + c]) or row sums (height x channels values, likewise)
 * of in (host, any layout and stride) into sums (host). _gold: one sample at
 * a time, the reference; _cpu: the CPU backend's path, parallel over rows
 * (OpenMP). Return 0, or GF_EINTERNAL out of memory. */
int gf_colsum_gold(const gf_image *in, uint32_t *sums);
int gf_colsum_cpu(const gf_image *in, uint32_t *sums);
int gf_rowsum_gold(const gf_image *in, uint32_t *sums);
int gf_rowsum_cpu(const gf_image *in, uint32_t *sums);

/* CUDA launchers (cuda/project.cu), as gf_launch_fn, for every layout.
 * Column sums treat the image as one channel of width x channels samples,
 * whose column sums are the channels' (8-bit and 16-bit kernels of each
 * variant): `byte`, one thread per sample column, a sample per row (seed
 * 4's first kernel); `word`, one thread per 4 bytes' columns, a 32-bit word
 * per row (seed 4's second); `split`, as word with the rows split among
 * blocks of 64 and the partial sums added atomically (zeroes the sums
 * first); `vector`, 16 bytes' columns a lane with 16-byte loads, 8 in
 * flight, summed in packed 16-bit lanes over 32 rows (8-bit) or 32-bit sums
 * (16-bit), a block's 8 row chunks added in shared memory, then atomically
 * (zeroes the sums first). Row sums: `warp`, a warp per row, 8 16-byte loads
 * per lane in flight, 8-bit gray bytes summed by __dp4a, other layouts
 * sample by sample into a sum per channel, a shuffle reduction. */
int gf_colsum_byte_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_colsum_word_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_colsum_split_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_colsum_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_rowsum_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
