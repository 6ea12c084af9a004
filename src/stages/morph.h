/* morph.h - the morphology stages (mathematical morphology with a flat
 * rectangular structuring element): --erode, --dilate, --open and --close,
 * each K|WxH, with the shared --border setting. Four stage kinds that share
 * everything but the operation. Shared by src/stages/morph.c (options, CPU
 * paths) and cuda/morph.cu.
 *
 * The structuring element is a rectangle of kw x kh pixels (odd, 1..63
 * each), centred on the pixel. Each channel is its own image (alpha
 * included); the window reads the padded image that the border mode
 * defines (src/border.h):
 *   erode  = the minimum of the window, dilate = its maximum;
 *   open   = erode, then dilate (reading the erosion through the border);
 *   close  = dilate, then erode.
 * With the default border (replicate) these equal OpenCV's cv::erode,
 * cv::dilate and cv::morphologyEx(MORPH_OPEN / MORPH_CLOSE) with a kh x kw
 * kernel of ones and OpenCV's default border (a constant that never wins:
 * an edge pixel already lies in every window that the replicated pixels
 * reach, so replicating it changes no minimum or maximum). */
#ifndef GF_MORPH_H
#define GF_MORPH_H

#include "../border.h"
#include "../gf.h"
#include "../stage.h"
#include "../stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gf_morph_op {
    GF_MORPH_ERODE = 0, /* minimum over the window */
    GF_MORPH_DILATE,    /* maximum over the window */
    GF_MORPH_OPEN,      /* erode, then dilate */
    GF_MORPH_CLOSE      /* dilate, then erode */
} gf_morph_op;

/* The stages' parameters (gf_stage.params): the window (the structuring
 * element) and the border. The operation is the stage's kind
 * (gf_morph_op_of). */
typedef gf_stencil_params gf_morph_params;

/* The largest side of the structuring element. */
#define GF_MORPH_MAX_SIDE 63

/* The operation of stage s (one of the four morphology stages). */
gf_morph_op gf_morph_op_of(const gf_stage *s);

/* Operation op with a kw x kh rectangle (odd, 1..63 each) over in -> out
 * (host memory, both width x height of one layout, any strides; out
 * allocated by the caller), each channel on its own, through border mode
 * `border`; every sample of out is written.
 * gf_morph_gold is the reference, by the definition: a rectangle's minimum
 * (maximum) is the minimum over its rows of each row segment's minimum, so
 * it takes each padded row's kw-wide minima, then the minimum of kh of
 * those down each column, a padded row outside the image being an image
 * row (replicate, reflect101: the padded image is I(bx(x), by(y))) or all
 * the constant (whose minimum is the constant); open and close are two such
 * passes, the second reading the first's result through the border. OpenMP
 * over rows.
 * gf_morph_cpu is the CPU backend's fast path on the stencil framework
 * (stencil.h), parallel over bands of rows: each output row takes the
 * column minima of the kh padded ring rows (directly for kh <= 5, else by
 * van Herk / Gil-Werman: prefix and suffix minima over blocks of kh rows,
 * 3 operations a sample whatever kh), then the row minima of those (directly
 * for kw <= 5, else by doubling: minima of 2, 4, 8, ... samples, and the
 * minimum of two overlapping power-of-two windows, log2(kw) + 1 operations a
 * sample), whole rows at a time in loops the compiler vectorises. out may
 * be in itself (the result replaces the input). Both equal each other bit
 * for bit.
 * Returns 0, or GF_EINTERNAL for a bad window, size or layout, or out of
 * memory. */
int gf_morph_gold(const gf_image *in, gf_image *out, gf_morph_op op, int kw, int kh,
                  gf_border border);
int gf_morph_cpu(const gf_image *in, gf_image *out, gf_morph_op op, int kw, int kh,
                 gf_border border);

/* CUDA launchers (cuda/morph.cu), as gf_launch_fn, for every layout and
 * border, device images up to 65535 a side:
 * `global` (the baseline): one thread per pixel reads its window from
 *   global memory through the border and takes the minimum or maximum
 *   directly, O(kw kh) a sample (the stencil framework's ST_GLOBAL);
 * `vanherk` (the default): a horizontal pass into a scratch image, then a
 *   vertical pass, each O(1) a sample by van Herk / Gil-Werman (van Herk,
 *   Pattern Recognition Letters 13(7), 1992; Gil and Werman, IEEE PAMI
 *   15(5), 1993). The horizontal pass stages row segments with their halo
 *   (through the border) in shared memory, 4 rows of 8-bit samples or 2 of
 *   16-bit packed in each 32-bit word (so one SIMD minimum, __vminu4 or
 *   __vminu2, serves them all), a thread per block of kw samples of one
 *   channel computes its prefix or suffix minima there, and each output is
 *   the minimum of one suffix and one prefix. The vertical pass gives each
 *   thread a 16-byte column of a band of rows, walking down it with the
 *   blocks' raw rows, then suffix minima, in its own slots of shared memory
 *   and the prefix minimum in registers;
 * `fused`: the same two passes in one kernel: a block runs the horizontal
 *   pass on a few rows at a time and hands each thread its column word of
 *   their minima for the vertical walk, so the horizontal minima never go
 *   through device memory (the image is read and written once, against
 *   twice for `vanherk`). A side of 1 runs the other pass alone.
 * `packed`: 3x3 and 5x5 squares in one pass on the warp-strip walker
 *   (cuda/packed.cuh): each row's horizontal extreme once, in whole words,
 *   then the extreme of the window's rows; other elements run `vanherk`.
 * open and close run the passes of both operations in turn (through one
 * scratch image, stream-ordered); a side of 1 skips its pass, 1x1 copies. */
int gf_morph_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_morph_vanherk_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_morph_fused_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_morph_packed_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
