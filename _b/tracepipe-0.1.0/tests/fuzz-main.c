/*
 * Standalone driver for the fuzz harnesses (as libpcap's onefile.c): runs
 * LLVMFuzzerTestOneInput on each file named, so that the harnesses build
 * and replay their corpora under make check without libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		FILE *fp = fopen(argv[i], "rb");
		unsigned char *buf = NULL;
		size_t len = 0, cap = 0, n;

		if (fp == NULL) {
			perror(argv[i]);
			return 2;
		}
		do {
			if (len == cap) {
				cap = cap ? cap * 2 : 65536;
				if ((buf = realloc(buf, cap)) == NULL)
					return 2;
			}
			n = fread(buf + len, 1, cap - len, fp);
			len += n;
		} while (n > 0);
		fclose(fp);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	return 0;
}
