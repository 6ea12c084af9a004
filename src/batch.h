/* batch.h - running gpufilt over its inputs: one file, or a batch of many
 * with CPU workers decoding and encoding while the GPU filters. */
#ifndef GF_BATCH_H
#define GF_BATCH_H

#include <stddef.h>

#include "cli.h"

/* Processes every input of o (its operands, --files-from, --shard) and
 * returns the exit status: 0 when every file succeeded, else the status of
 * the failure of the earliest file in the list (never 255). Errors are
 * printed as "gpufilt: FILE: reason"; a failed file does not stop the
 * others. */
int gf_run(const gf_options *o);

/* Expands an output template for input `path` at 1-based list position
 * `index`: {stem} (the file name without its last extension), {name} (the
 * file name), {ext} (the extension, without the dot), {dir} (the directory,
 * "." for none) and {index}. Writes at most n bytes to out. Returns 0, or
 * GF_EUSAGE for an unknown placeholder or a result too long. */
int gf_expand_template(const char *tmpl, const char *path, int index, char *out, size_t n);

#endif
