// SPDX-License-Identifier: BSD-3-Clause
/*
 * Replays fuzz inputs through LLVMFuzzerTestOneInput without libFuzzer
 * (as zstd's tests/fuzz/regression_driver.c does): every file named, and
 * every file in every directory named, in name order. Crashes and
 * sanitizer reports fail the test run.
 *
 * usage: fuzz_regression FILE|DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "fuzz_regression: %s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int i, err = 0, runs = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "fuzz_regression: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			char **names = NULL, path[4096];
			size_t n = 0, k;
			struct dirent *de;
			DIR *d = opendir(argv[i]);

			if (!d)
				return 1;
			while ((de = readdir(d))) {
				if (de->d_name[0] == '.')
					continue;
				names = realloc(names, (n + 1) * sizeof(*names));
				if (!names || !(names[n++] = strdup(de->d_name)))
					abort();
			}
			closedir(d);
			if (n)
				qsort(names, n, sizeof(*names), by_name);
			for (k = 0; k < n; k++) {
				snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]);
				err |= run_file(path);
				runs++;
				free(names[k]);
			}
			free(names);
		} else {
			err |= run_file(argv[i]);
			runs++;
		}
	}
	printf("fuzz_regression: %d inputs\n", runs);
	return err;
}
