/* Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so that
 * the inputs kept under tests/fuzz/regressions/ are checked by every build (gcc Release,
 * ASan+UBSan), not only the clang fuzz build. Usage: replay_TARGET FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: %s FILE...\nRuns each file once through the fuzz target.\n",
                argv[0]);
        return argc < 2 ? 2 : 0;
    }
    for (int i = 1; i < argc; i++) {
        size_t len;
        char *text = read_file(argv[i], &len);
        if (!text) {
            perror(argv[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput((const uint8_t *)text, len);
        free(text);
        printf("ok %s\n", argv[i]);
    }
    return 0;
}
