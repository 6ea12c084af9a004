/* files.c - report files (files.h). */
#include "files.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../codec/codec.h"
#include "json.h"
#include "plot.h"

gf_report_type gf_report_type_of(const char *path)
{
    const char *ext = gf_path_ext(path);

    if (!strcmp(path, "-"))
        return GF_REPORT_STDOUT;
    if (!ext)
        return GF_REPORT_NONE;
    if (!strcasecmp(ext, "csv"))
        return GF_REPORT_CSV;
    if (!strcasecmp(ext, "json"))
        return GF_REPORT_JSON;
    if (!strcasecmp(ext, "png"))
        return GF_REPORT_PNG;
    if (!strcasecmp(ext, "svg"))
        return GF_REPORT_SVG;
    return GF_REPORT_NONE;
}

int gf_memfile_open(gf_memfile *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? 0 : gf_err(GF_EINTERNAL, NULL, "out of memory");
}

int gf_memfile_commit(gf_memfile *m, const char *path)
{
    int rc = fclose(m->f) ? gf_err(GF_EINTERNAL, path, "out of memory")
                          : gf_write(path, (const unsigned char *)m->buf, m->len);
    free(m->buf);
    m->buf = NULL;
    return rc;
}

int gf_report_write(const gf_stage *s, const gf_result *r, const char *path)
{
    gf_report_type t = gf_report_type_of(path);
    gf_memfile m;
    int rc;

    if (t == GF_REPORT_PNG || t == GF_REPORT_SVG) {
        gf_plot p;
        unsigned char *buf;
        size_t len;
        memset(&p, 0, sizeof p);
        s->ops->plot(s, r, &p);
        p.width = s->mods.plot_w;
        p.height = s->mods.plot_h;
        rc = gf_plot_render(&p, t == GF_REPORT_SVG, &buf, &len);
        for (int i = 0; i < GF_PLOT_MAX_SERIES; i++)
            free(p.owned[i]);
        if (rc) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s", gf_errmsg());
            return gf_err(rc, path, "%s", msg);
        }
        rc = gf_write(path, buf, len);
        free(buf);
        return rc;
    }
    if ((rc = gf_memfile_open(&m)))
        return rc;
    if (t == GF_REPORT_JSON) {
        json_t *j = s->ops->to_json(s, r);
        if (gf_json_line(j, m.f)) {
            json_decref(j);
            fclose(m.f);
            free(m.buf);
            return gf_err(GF_EINTERNAL, path, "out of memory");
        }
        json_decref(j);
    } else {
        s->ops->write_csv(s, r, m.f);
    }
    return gf_memfile_commit(&m, path);
}
