/* replay_main.c: runs a fuzz harness without libFuzzer, over the files (or
 * the files of the directories) named on the command line; used by the tests
 * to replay seeds and past crashes with any compiler. Prints one line per
 * input; a harness that finds a bug aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	/* an exact-size copy, so that a read past the end is caught */
	uint8_t *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	printf("replay %s (%zu bytes)\n", path, n);
	fflush(stdout);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d)
			continue;
		char **names = NULL;
		size_t n = 0;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
			sprintf(names[n++], "%s/%s", argv[i], e->d_name);
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp);
		for (size_t k = 0; k < n; k++) {
			bad |= run_file(names[k]);
			free(names[k]);
		}
		free(names);
	}
	return bad;
}
