/* mean.h - CPU reference of the box mean (box filter), also the CPU backend. */
#ifndef GF_MEAN_H
#define GF_MEAN_H

#include "../border.h"
#include "../gf.h"

/* Box mean of ksize x ksize (3 or 5) over in -> out (host memory, both
 * width x height, any strides; out allocated by the caller). Each pixel is
 * the nearest integer to sum/area, computed exactly as
 * floor((2*sum + area) / (2*area)) with area = ksize^2; for odd areas no
 * exact .5 exists, so this equals OpenCV's cv::blur on 8-bit images. The
 * window reads the padded image `border` defines (border.h); every pixel,
 * border included, is written. Runs separably (column sums, then a sliding
 * row sum), parallel over rows with OpenMP. in and out must not overlap.
 * Returns 0, or GF_EINTERNAL for a bad ksize or out of memory. */
int gf_mean_cpu(const gf_image *in, gf_image *out, int ksize, gf_border border);

#endif
