/* naming.h - output names for a batch: templates, -o DIR/, collisions and
 * the directories outputs go into. Pure functions of their arguments, but
 * for gf_make_dirs, which creates directories. */
#ifndef GF_NAMING_H
#define GF_NAMING_H

#include <stddef.h>

#include "../codec/codec.h"

/* Expands an output template for input `path` at 1-based list position
 * `index`: {stem} (the file name without its last extension), {name} (the
 * file name), {ext} (the extension, without the dot), {dir} (the directory,
 * "." for none) and {index}. Writes at most n bytes to out. Returns 0, or
 * GF_EUSAGE for an unknown field, a result too long or an empty one. */
int gf_expand_template(const char *tmpl, const char *path, int index, char *out, size_t n);

/* The image output name for input `path` (1-based `index`): with dir set,
 * output is a directory and the name is output/STEM.EXT (EXT the format's
 * extension); otherwise output is a template, expanded. Writes at most n
 * bytes to out. Errors: as gf_expand_template. */
int gf_output_name(const char *output, int dir, gf_format format, const char *path, int index,
                   char *out, size_t n);

/* The first two entries of names (n strings; "-" and NULL never collide)
 * that are equal, as *a < *b; returns 1 when there are any, else 0. */
int gf_find_collision(char *const *names, size_t n, size_t *a, size_t *b);

/* mkdir -p of the directory part of path (of path itself when dir != 0).
 * Errors: GF_ECREATE with the reason errno gives ("Not a directory" when a
 * parent is a file). */
int gf_make_dirs(const char *path, int dir);

#endif
