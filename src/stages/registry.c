/* registry.c - the one list of stage kinds. The command line, --help, the
 * pipeline, make test-gpu and gpufilt bench read every stage from here; a
 * new stage is one line below (and its own files). */
#include "../stage.h"

#define GF_STAGES(X) \
    X(gray)          \
    X(depth)         \
    X(mean)          \
    X(gaussian)      \
    X(unsharp)       \
    X(sobel)         \
    X(scharr)        \
    X(laplacian)     \
    X(convolve)      \
    X(erode)         \
    X(dilate)        \
    X(open)          \
    X(close)         \
    X(median)        \
    X(threshold)     \
    X(transpose)     \
    X(mirror)        \
    X(crop)          \
    X(resize)        \
    X(equalize)      \
    X(clahe)         \
    X(autocontrast)  \
    X(level)         \
    X(gamma)         \
    X(negate)        \
    X(hist)          \
    X(colsum)        \
    X(rowsum)

#define DECLARE(name) extern const gf_stage_ops gf_stage_##name;
GF_STAGES(DECLARE)

#define ENTRY(name) &gf_stage_##name,
const gf_stage_ops *const gf_stages[] = {GF_STAGES(ENTRY) NULL};
