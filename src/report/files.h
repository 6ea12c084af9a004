/* files.h - report files: the types a report stage writes (CSV, JSON, a PNG
 * or SVG plot), each built whole in memory and then written atomically. */
#ifndef GF_REPORT_FILES_H
#define GF_REPORT_FILES_H

#include <stdio.h>

#include "../stage.h"

typedef enum gf_report_type {
    GF_REPORT_NONE = 0, /* unknown extension */
    GF_REPORT_CSV,
    GF_REPORT_JSON,
    GF_REPORT_PNG,
    GF_REPORT_SVG,
    GF_REPORT_STDOUT, /* "-": CSV on stdout */
} gf_report_type;

/* The type that path's extension names (.csv, .json, .png, .svg, either
 * case), or GF_REPORT_STDOUT for "-". */
gf_report_type gf_report_type_of(const char *path);

/* A file built in memory with stdio (open_memstream), then written whole by
 * gf_write, so no partial report is ever left. */
typedef struct gf_memfile {
    FILE *f;
    char *buf;
    size_t len;
} gf_memfile;

/* Opens m. Errors: GF_EINTERNAL. */
int gf_memfile_open(gf_memfile *m);

/* Closes m and writes its bytes to path ("-": stdout); frees the buffer.
 * Errors: as gf_write, or GF_EINTERNAL. */
int gf_memfile_commit(gf_memfile *m, const char *path);

/* Writes report stage s's result r to path (s->path expanded), in the type
 * its extension names: CSV, JSON, or a plot drawn by gf_plot_render.
 * Errors: GF_ECREATE, GF_EIO (as gf_write), GF_EINTERNAL. */
int gf_report_write(const gf_stage *s, const gf_result *r, const char *path);

#endif
