/* batch.h - running gpufilt over its inputs: one file, or a batch of many
 * with CPU workers decoding and encoding while the GPU filters. */
#ifndef GF_BATCH_H
#define GF_BATCH_H

#include "../plan.h"

/* Processes every input of p (its operands, --files-from, --shard) and
 * returns the exit status: 0 when every file succeeded, else the status of
 * the failure of the earliest file in the list (never 255). Errors are
 * printed as "gpufilt: FILE: reason"; a failed file does not stop the
 * others. */
int gf_run(const gf_plan *p);

#endif
