/* edges.h - the edge stages: --sobel, --scharr (gradient magnitude |Gx| +
 * |Gy| of the 3x3 Sobel or Scharr derivatives) and --laplacian (|L| of the
 * 3x3 Laplacian), each a stage of its own on the stencil framework, with
 * --border MODE. Shared by src/stages/edges.c (options, CPU paths) and
 * cuda/edges.cu. */
#ifndef GF_EDGES_H
#define GF_EDGES_H

#include "../border.h"
#include "../gf.h"
#include "../stage.h"
#include "../stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The three rules. Each is a correlation (the kernel not flipped) of every
 * channel with 3x3 integer kernels over the padded image, as OpenCV defines
 * them (cv2.Sobel / cv2.Scharr with ddepth CV_64F, dx=1,dy=0 and dx=0,dy=1;
 * cv2.Laplacian with ksize=1):
 *   GF_EDGE_SOBEL      Gx = [-1 0 1; -2 0 2; -1 0 1], Gy its transpose;
 *                      output min(maxval, |Gx| + |Gy|)
 *   GF_EDGE_SCHARR     Gx = [-3 0 3; -10 0 10; -3 0 3], Gy its transpose;
 *                      output min(maxval, |Gx| + |Gy|)
 *   GF_EDGE_LAPLACIAN  L = [0 1 0; 1 -4 1; 0 1 0]; output min(maxval, |L|)
 * maxval is 255 for 8-bit samples and 65535 for 16-bit. Sobel and Scharr are
 * separable: Gx is the vertical smoothing (a, b, a) = (1, 2, 1) or (3, 10, 3)
 * of each column followed by the horizontal difference (-1, 0, 1), and Gy the
 * vertical difference followed by the horizontal smoothing. */
typedef enum gf_edge_rule {
    GF_EDGE_SOBEL = 0,
    GF_EDGE_SCHARR = 1,
    GF_EDGE_LAPLACIAN = 2,
} gf_edge_rule;

/* The smoothing weights (a, b, a) of the gradient rules: Sobel (1, 2, 1),
 * Scharr (3, 10, 3). */
#define GF_SOBEL_A 1
#define GF_SOBEL_B 2
#define GF_SCHARR_A 3
#define GF_SCHARR_B 10

/* The stages' parameters (gf_stage.params): the window (always 3x3) and the
 * border, then the rule. */
typedef struct gf_edges_params {
    gf_stencil_params st;
    gf_edge_rule rule;
} gf_edges_params;

/* Edge rule `rule` over in -> out (host memory, both width x height of one
 * layout, any strides; out allocated by the caller), each channel on its
 * own, alpha included; the window reads the padded image `border` defines
 * (border.h); every sample is written.
 * gf_edges_gold correlates each window with the rule's kernels by their
 * definition, in 64-bit integers: the reference.
 * gf_edges_cpu is the CPU backend's fast path on the stencil framework
 * (stencil.h): the ring's three padded rows, combined along the row in
 * vector loops (16-bit lanes for 8-bit images, 32-bit for 16-bit), Sobel and
 * Scharr through their separable form; parallel over bands of rows (OpenMP).
 * It equals the gold bit for bit; out may be in itself (the result replaces
 * the input).
 * Returns 0, or GF_EINTERNAL for a bad rule, mismatched shapes or out of
 * memory. */
int gf_edges_gold(const gf_image *in, gf_image *out, gf_edge_rule rule, gf_border border);
int gf_edges_cpu(const gf_image *in, gf_image *out, gf_edge_rule rule, gf_border border);

/* CUDA launchers (cuda/edges.cu), as gf_launch_fn, for every layout and the
 * three rules (the stage's gf_edges_params say which):
 *   global   one thread per pixel, its 3x3 window read from global memory
 *            (stencil.cuh ST_GLOBAL)
 *   shared   a block's 32x32 tile and its halo staged in shared memory once
 *            (ST_SHARED)
 *   texture  reads through a texture object, the replicate border of one
 *            channel in hardware (ST_TEXTURE; waits for its kernel)
 *   packed   a warp walks down a strip of rows, each lane 16 bytes wide,
 *            with one 16-byte load a row, the neighbours' samples by shuffle
 *            and the three rows' values in registers (the box mean's warp
 *            kernel in shape); for 8-bit layouts the arithmetic runs on two
 *            samples a 32-bit word (16-bit lanes), for 16-bit on one.
 * A side may not exceed 65535. */
int gf_edges_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_edges_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_edges_texture_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_edges_packed_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
