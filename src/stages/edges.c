/* edges.c - the edge stages --sobel, --scharr and --laplacian, on the
 * stencil framework: three descriptors, one rule each (edges.h). */
#include "edges.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_edges_params) <= GF_STAGE_PARAMS, "edges params");

/* The rules' kernels, row by row (correlation: k[(dy+1)*3 + dx+1] weighs
 * the pixel at (x+dx, y+dy)), and how many each rule sums: |G1| + |G2| for
 * the gradients, |L| for the Laplacian. */
static const int kernels[3][2][9] = {
    [GF_EDGE_SOBEL] = {{-1, 0, 1, -2, 0, 2, -1, 0, 1}, {-1, -2, -1, 0, 0, 0, 1, 2, 1}},
    [GF_EDGE_SCHARR] = {{-3, 0, 3, -10, 0, 10, -3, 0, 3}, {-3, -10, -3, 0, 0, 0, 3, 10, 3}},
    [GF_EDGE_LAPLACIAN] = {{0, 1, 0, 1, -4, 1, 0, 1, 0}},
};
static const int nkernels[3] = {2, 2, 1};

static int check_args(const gf_image *in, const gf_image *out, gf_edge_rule rule)
{
    if ((unsigned)rule > GF_EDGE_LAPLACIAN || out->width != in->width ||
        out->height != in->height || out->channels != in->channels || out->bits != in->bits ||
        !gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "edges: bad arguments (rule %d)", (int)rule);
    return 0;
}

int gf_edges_gold(const gf_image *in, gf_image *out, gf_edge_rule rule, gf_border border)
{
    const int w = in->width, h = in->height;
    const int64_t max = gf_sample_max(in->bits);
    int rc = check_args(in, out, rule);

    if (rc)
        return rc;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < in->channels; c++) {
                int64_t mag = 0;
                for (int k = 0; k < nkernels[rule]; k++) {
                    int64_t g = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++)
                            g += (int64_t)kernels[rule][k][(dy + 1) * 3 + dx + 1] *
                                 gf_stencil_at(in, x + dx, y + dy, c, border);
                    mag += g < 0 ? -g : g;
                }
                gf_sample_set(out, x, y, c, (unsigned)(mag < max ? mag : max));
            }
    return 0;
}

/* The fast path's column rules: the ring holds the window's three padded
 * rows (no row rule), r0 above, r1 the output row's own, r2 below; sample i
 * of the output reads samples i, i + C, i + 2C of each (the pixels left,
 * centre and right). Sobel and Scharr take their separable form over a
 * chunk of the row at a time (so that the two vertical rows stay in the L1
 * cache): vs = a (r0 + r2) + b r1 (vertical smoothing) and vd = r2 - r0
 * (vertical difference) for every column of the chunk and its two border
 * columns, then Gx = vs[i + 2C] - vs[i] and Gy = a (vd[i] + vd[i + 2C]) +
 * b vd[i + C]. S is the arithmetic's type: int16_t for 8-bit samples
 * (|Gx| + |Gy| <= 2 * 16 * 255 = 8160), int32_t for 16-bit. The row length
 * n is copied before the loops (a sample store may alias *j). */
#define CHUNK 2048 /* samples of a row a pass: two rows of 2 or 4 bytes in L1 */

#define GRADIENT_COL(NAME, T, S, A, B)                                                         \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src,                    \
                               unsigned char *out, void *acc, int first)                      \
    {                                                                                         \
        const T *restrict r0 = win[0], *restrict r1 = win[1], *restrict r2 = win[2];          \
        T *restrict o = (T *)(void *)out;                                                     \
        const size_t n = j->n, C = (size_t)j->channels;                                       \
        const S max = (S)(sizeof(T) == 1 ? 255 : 65535);                                      \
        S vs[CHUNK + 8], vd[CHUNK + 8];                                                       \
        (void)gone, (void)src, (void)acc, (void)first;                                        \
        for (size_t i0 = 0; i0 < n; i0 += CHUNK) {                                            \
            const size_t m = n - i0 < CHUNK ? n - i0 : CHUNK;                                 \
            const T *restrict a0 = r0 + i0, *restrict a1 = r1 + i0, *restrict a2 = r2 + i0;   \
            T *restrict oo = o + i0;                                                          \
            for (size_t i = 0; i < m + 2 * C; i++) {                                          \
                vs[i] = (S)((A) * (a0[i] + a2[i]) + (B) * a1[i]);                             \
                vd[i] = (S)(a2[i] - a0[i]);                                                   \
            }                                                                                 \
            for (size_t i = 0; i < m; i++) {                                                  \
                const S gx = (S)(vs[i + 2 * C] - vs[i]);                                      \
                const S gy = (S)((A) * (vd[i] + vd[i + 2 * C]) + (B) * vd[i + C]);            \
                const S g = (S)((gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy));                   \
                oo[i] = (T)(g < max ? g : max);                                               \
            }                                                                                 \
        }                                                                                     \
    }
GRADIENT_COL(sobel_col_8, uint8_t, int16_t, GF_SOBEL_A, GF_SOBEL_B)
GRADIENT_COL(sobel_col_16, uint16_t, int32_t, GF_SOBEL_A, GF_SOBEL_B)
GRADIENT_COL(scharr_col_8, uint8_t, int16_t, GF_SCHARR_A, GF_SCHARR_B)
GRADIENT_COL(scharr_col_16, uint16_t, int32_t, GF_SCHARR_A, GF_SCHARR_B)

/* L = up + down + left + right - 4 centre; |L| <= 4 maxval. */
#define LAPLACIAN_COL(NAME, T, S)                                                             \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src,                    \
                               unsigned char *out, void *acc, int first)                      \
    {                                                                                         \
        const T *restrict r0 = win[0], *restrict r1 = win[1], *restrict r2 = win[2];          \
        T *restrict o = (T *)(void *)out;                                                     \
        const size_t n = j->n, C = (size_t)j->channels;                                       \
        const S max = (S)(sizeof(T) == 1 ? 255 : 65535);                                      \
        (void)gone, (void)src, (void)acc, (void)first;                                        \
        for (size_t i = 0; i < n; i++) {                                                      \
            const S l = (S)(r0[i + C] + r2[i + C] + r1[i] + r1[i + 2 * C] - 4 * r1[i + C]);   \
            const S a = (S)(l < 0 ? -l : l);                                                  \
            o[i] = (T)(a < max ? a : max);                                                    \
        }                                                                                     \
    }
LAPLACIAN_COL(laplacian_col_8, uint8_t, int16_t)
LAPLACIAN_COL(laplacian_col_16, uint16_t, int32_t)

int gf_edges_cpu(const gf_image *in, gf_image *out, gf_edge_rule rule, gf_border border)
{
    typedef void (*col_fn)(const gf_stencil_job *, const void *const *, const void *,
                           const unsigned char *, unsigned char *, void *, int);
    static const col_fn cols[3][2] = {
        [GF_EDGE_SOBEL] = {sobel_col_8, sobel_col_16},
        [GF_EDGE_SCHARR] = {scharr_col_8, scharr_col_16},
        [GF_EDGE_LAPLACIAN] = {laplacian_col_8, laplacian_col_16},
    };
    int rc = check_args(in, out, rule);

    if (rc)
        return rc;
    const gf_stencil_cpu r = {NULL, 0, cols[rule][in->bits == 16], 0};
    const gf_stencil_job j = {NULL,         NULL,     in->width, in->height,
                              in->channels, in->bits, 3,         3,
                              border,       (size_t)in->width * (size_t)in->channels};
    return gf_stencil_cpu_run(&r, &j, in, out);
}

static int edges_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_edges_params *p = GF_CPARAMS(s, gf_edges_params);
    return gf_edges_gold(in, out, p->rule, p->st.border);
}

static int edges_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_edges_params *p = GF_CPARAMS(s, gf_edges_params);
    return gf_edges_cpu(in, out, p->rule, p->st.border);
}

static int edges_in_place(const gf_stage *s, gf_image *img)
{
    return edges_cpu(s, img, img);
}

static const char *const rule_names[3] = {"sobel", "scharr", "laplacian"};

static void edges_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s", rule_names[GF_CPARAMS(s, gf_edges_params)->rule]);
}

static void set_rule(gf_stage *s, gf_edge_rule rule)
{
    gf_edges_params *p = GF_PARAMS(s, gf_edges_params);

    p->st.border.mode = GF_BORDER_REPLICATE;
    p->st.border.value = 0;
    p->st.kw = p->st.kh = 3;
    p->rule = rule;
}

static int parse_sobel(gf_stage *s, const char *arg)
{
    (void)arg;
    set_rule(s, GF_EDGE_SOBEL);
    return 0;
}

static int parse_scharr(gf_stage *s, const char *arg)
{
    (void)arg;
    set_rule(s, GF_EDGE_SCHARR);
    return 0;
}

static int parse_laplacian(gf_stage *s, const char *arg)
{
    (void)arg;
    set_rule(s, GF_EDGE_LAPLACIAN);
    return 0;
}

extern const gf_stage_ops gf_stage_sobel, gf_stage_scharr, gf_stage_laplacian;

/* Test configurations: each border mode (a random constant within 8 bits,
 * so that it suits every layout); bench: replicate. The rule is the
 * descriptor's own. */
static int edges_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    gf_edges_params *p = GF_PARAMS(s, gf_edges_params);

    if (i >= (bench ? 1 : 3))
        return 0;
    set_rule(s, s->ops == &gf_stage_sobel    ? GF_EDGE_SOBEL
                : s->ops == &gf_stage_scharr ? GF_EDGE_SCHARR
                                             : GF_EDGE_LAPLACIAN);
    p->st.border.mode = modes[i];
    p->st.border.value = modes[i] == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt sobel_opts[] = {
    {"sobel", NULL,
     "Sobel gradient magnitude of each channel: min(max, |Gx| + |Gy|) of the 3x3 Sobel "
     "derivatives",
     GF_OPT_ADD, parse_sobel},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_stage_opt scharr_opts[] = {
    {"scharr", NULL,
     "Scharr gradient magnitude of each channel: min(max, |Gx| + |Gy|) of the 3x3 Scharr "
     "derivatives",
     GF_OPT_ADD, parse_scharr},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_stage_opt laplacian_opts[] = {
    {"laplacian", NULL,
     "Laplacian of each channel: min(max, |L|), L the correlation with [0 1 0; 1 -4 1; 0 1 0]",
     GF_OPT_ADD, parse_laplacian},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant edges_variants[] = {
    {"global", GF_CUDA(gf_edges_global_cuda)},
    {"shared", GF_CUDA(gf_edges_shared_cuda)},
    {"texture", GF_CUDA(gf_edges_texture_cuda)},
    {"packed", GF_CUDA(gf_edges_packed_cuda)},
    {NULL, NULL},
};

/* The default variant, by measurement (docs/benchmarks.md, H100, 8000x8000,
 * 2026-12-07): `packed` (the warp-strip walker) was the fastest of the four
 * for Sobel, Scharr and the Laplacian on gray and RGB 8-bit and gray 16-bit,
 * 1.6-2.6x `global` and `shared`. */
static const gf_default edges_defaults[] = {
    {0, 0, "packed"},
    {0, 0, NULL},
};

#define EDGES_OPS(NAME, OPTS, COST, DEFAULTS)                                                 \
    const gf_stage_ops gf_stage_##NAME = {                                                    \
        .cpu_cost = (COST),                                                                   \
        .name = #NAME,                                                                        \
        .group = "edges",                                                                     \
        .opts = (OPTS),                                                                       \
        .variants = edges_variants,                                                           \
        .defaults = (DEFAULTS),                                                               \
        .layouts = GF_LAYOUTS_ALL,                                                            \
        .check = gf_stencil_check,                                                            \
        .label = edges_label,                                                                 \
        .gold = edges_gold,                                                                   \
        .cpu = edges_cpu,                                                                     \
        .cpu_in_place = edges_in_place,                                                       \
        .config = edges_config,                                                               \
    };
/* cpu_cost: one thread, 5120x2880 gray and RGB 8-bit, gray 16-bit (0.23 -
 * 0.37 ns a byte for Sobel and Scharr, 0.17 - 0.27 for the Laplacian; about
 * a third of it the framework's copies of the padded rows) */
EDGES_OPS(sobel, sobel_opts, 0.30, edges_defaults)
EDGES_OPS(scharr, scharr_opts, 0.30, edges_defaults)
EDGES_OPS(laplacian, laplacian_opts, 0.25, edges_defaults)
