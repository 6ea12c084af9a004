/* fuzz_cli.c - libFuzzer harness of the command line (src/cli.c): the bytes
 * are the arguments, separated by NUL or newline. Parsing must end in a
 * plan, a usage error or help, and never touch memory it does not own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!freopen("/dev/null", "w", stdout)) /* --help and --version print */
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
    int argc = 1;
    gf_plan p;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    argv[0] = "gpufilt";
    for (char *s = buf; argc <= MAX_ARGS && s <= buf + size;) {
        char *e = s;
        while (e < buf + size && *e && *e != '\n')
            e++;
        *e = 0;
        argv[argc++] = s;
        s = e + 1;
    }
    argv[argc] = NULL;
    gf_cli_parse(argc, argv, &p);
    free(buf);
    return 0;
}
