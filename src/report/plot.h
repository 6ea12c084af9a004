/* plot.h - draws a report stage's gf_plot (stage.h) as a PNG (cairo, with
 * the DejaVu Sans font) or as SVG (text written here, so that the title,
 * axis titles and tick labels stay searchable text). Both come from one
 * layout: a title with the input's name, axis titles, 5 to 10 round-number
 * ticks on each axis (powers of ten on a log scale), and a legend when the
 * series have names. Everything is local to the call: plots may be drawn
 * from several threads at once. */
#ifndef GF_REPORT_PLOT_H
#define GF_REPORT_PLOT_H

#include <stddef.h>

#include "../stage.h"

/* Renders p (width x height pixels, GF_PLOT_W x GF_PLOT_H when 0) into a
 * malloc'd buffer *out of *len bytes: PNG when svg == 0, else SVG.
 * Errors: GF_EINTERNAL (out of memory, or cairo failed). */
int gf_plot_render(const gf_plot *p, int svg, unsigned char **out, size_t *len);

/* Round-number ticks for an axis from 0 to max: a step of 1, 2 or 5 times a
 * power of ten that gives 5 to 10 ticks (fewer when max is small); *top is
 * the first tick at or above max. Returns the step (>= 1). */
double gf_plot_ticks(double max, double *top);

#endif
