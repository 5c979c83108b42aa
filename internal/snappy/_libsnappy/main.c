// Command _libsnappy times the C++ Snappy library's block decompression
// (snappy_uncompress of snappy-c.h, the decoder DuckDB and Arrow C++ link)
// of the page bodies in a pages file written by _dumppages (uvarint
// length, body): the floor our decoder is compared with in
// docs/performance.md. Not part of the build: it is C, and needs
// libsnappy-dev (apt-get install libsnappy-dev).
//
//	cc -O2 -o /tmp/libsnappy-floor main.c -lsnappy
//	/tmp/libsnappy-floor pages.spages rounds
//
// It prints the decompressed bytes per second of thread CPU time (GB/s,
// 1e9 bytes), best and median of the rounds, as BenchmarkDecode's
// cpu-MB/s counts them.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <snappy-c.h>

static double cpu(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: %s pages rounds\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) { perror(argv[1]); return 1; }
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *in = malloc(n);
	if (fread(in, 1, n, f) != (size_t)n) { perror("read"); return 1; }
	fclose(f);
	int rounds = atoi(argv[2]);
	size_t cap = 16 << 20;
	char *out = malloc(cap);
	double *gbs = calloc(rounds, sizeof(double));
	for (int r = -1; r < rounds; r++) {
		double t0 = cpu(), total = 0;
		for (long p = 0; p < n;) {
			uint64_t len = 0;
			int shift = 0;
			while (in[p] & 0x80) { len |= (uint64_t)(in[p++] & 0x7f) << shift; shift += 7; }
			len |= (uint64_t)in[p++] << shift;
			size_t size = cap;
			if (snappy_uncompress((const char *)in + p, len, out, &size) != SNAPPY_OK) {
				fprintf(stderr, "page at %ld: not a Snappy block\n", p);
				return 1;
			}
			total += size;
			p += len;
		}
		double dt = cpu() - t0;
		if (r >= 0) gbs[r] = total / dt / 1e9;
	}
	qsort(gbs, rounds, sizeof(double), cmp);
	printf("%s: best %.2f GB/s, median %.2f GB/s over %d rounds\n", argv[1], gbs[rounds - 1], gbs[rounds / 2], rounds);
	return 0;
}
