/* main.c - argv -> plan -> files processed -> exit status; the only place
 * that exits. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "batch/batch.h"
#include "bench.h"
#include "cli.h"
#include "gpu.h"

#define MMAP_THRESHOLD (512 << 20) /* allocations above this are mmap'd */

static void on_signal(int sig)
{
    gf_tmp_cleanup(); /* no partial output survives Ctrl-C or kill */
    signal(sig, SIG_DFL);
    raise(sig); /* the shell sees 128 + sig */
}

int main(int argc, char **argv)
{
    gf_plan p;
    int rc;

    gf_process_t0 = gf_now_ms();
    /* Images are large and come and go per file: keep freed memory in the
     * heap for the next one instead of returning it to the kernel and
     * faulting fresh zeroed pages in again (glibc's defaults trim at 2x the
     * mmap threshold, which it caps at 32 MiB). */
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD);
    if (argc > 1 && !strcmp(argv[1], "bench"))
        return gf_bench_main(argc - 1, argv + 1);
    rc = gf_cli_parse(argc, argv, &p);
    if (rc == 1)
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -GF_EIO;
    if (rc) {
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
        gf_cli_usage(stderr);
        return -rc;
    }
    /* a reader that goes away (gpufilt ... -o - | head) ends gpufilt
     * quietly by SIGPIPE, as it ends cat, once temporaries are removed */
    signal(SIGPIPE, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    rc = gf_run(&p);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "gpufilt: (stdout): write error: %s\n", strerror(errno));
        if (rc == 0)
            rc = -GF_EIO;
    }
    if (gf_gpu_opened()) {
        /* every output is renamed and every stream drained: leave the CUDA
         * contexts to the kernel rather than pay the runtime's teardown */
        fflush(stderr);
        _exit(rc);
    }
    return rc;
}
