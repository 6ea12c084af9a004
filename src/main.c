/* main.c - argv -> options -> files processed -> exit status; the only
 * place that exits. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "bench.h"
#include "cli.h"
#include "image.h"

static void on_signal(int sig)
{
    gf_tmp_cleanup(); /* no partial output survives Ctrl-C or kill */
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    gf_options o;
    int rc;

    if (argc > 1 && !strcmp(argv[1], "bench"))
        return gf_bench_main(argc - 1, argv + 1);
    rc = gf_cli_parse(argc, argv, &o);
    if (rc == 1)
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 74;
    if (rc) {
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
        gf_cli_usage(stderr);
        return -rc;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    gf_set_png_level(o.png_level);
    return gf_run(&o);
}
