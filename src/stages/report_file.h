/* report_file.h - what the report stages share: the file types they write
 * and a stdio stream that becomes an atomically written file. */
#ifndef GF_REPORT_FILE_H
#define GF_REPORT_FILE_H

#include <stdio.h>

typedef enum gf_report_type {
    GF_REPORT_NONE = 0, /* unknown extension */
    GF_REPORT_CSV,
    GF_REPORT_JSON,
    GF_REPORT_PNG,
    GF_REPORT_STDOUT, /* "-": CSV on stdout */
} gf_report_type;

/* The type that path's extension names (.csv, .json, .png, either case), or
 * GF_REPORT_STDOUT for "-". */
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

#endif
