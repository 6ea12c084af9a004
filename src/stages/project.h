/* project.h - projection profiles: --colsum FILE (one sum per column, the
 * vertical profile) and --rowsum FILE (one sum per row, the horizontal
 * profile). Shared by src/stages/project.c and cuda/project.cu. Sums are
 * exact in 32 bits: no side exceeds 65535, so no sum exceeds 65535 * 255. */
#ifndef GF_PROJECT_H
#define GF_PROJECT_H

#include <stdint.h>

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column sums (width values) or row sums (height values) of in (host, any
 * stride) into sums (host). _gold: one pixel at a time, the reference;
 * _cpu: the CPU backend's path, parallel over rows (OpenMP). Return 0. */
int gf_colsum_gold(const gf_image *in, uint32_t *sums);
int gf_colsum_cpu(const gf_image *in, uint32_t *sums);
int gf_rowsum_gold(const gf_image *in, uint32_t *sums);
int gf_rowsum_cpu(const gf_image *in, uint32_t *sums);

/* CUDA launchers (cuda/project.cu), as gf_launch_fn. Column sums: `byte`,
 * one thread per column, a byte per row (seed 4's first kernel); `word`, one
 * thread per 4 columns, a 32-bit word per row (seed 4's second); `split`, as
 * word with the rows split among blocks of 64 and the partial sums added
 * atomically (zeroes the sums first); `vector`, 16 columns a lane with
 * 16-byte loads, 8 in flight, summed in packed 16-bit lanes over 32 rows,
 * a block's 8 row chunks added in shared memory, then atomically (zeroes
 * the sums first). Row sums: `warp`, a warp per row, 8 16-byte loads per
 * lane in flight, bytes summed by __dp4a, a shuffle reduction. */
int gf_colsum_byte_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_colsum_word_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_colsum_split_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_colsum_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_rowsum_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
