// Command _libzstd times libzstd's one-shot decompression
// (ZSTD_decompressDCtx with one reused context) of the page bodies in a
// pages file written by internal/snappy/_dumppages (uvarint length, body),
// the floor the ZSTD rows of docs/performance.md quote. Not part of the
// build: it is C, and needs libzstd-dev (apt-get install libzstd-dev).
//
//	cc -O2 -o /tmp/libzstd-floor main.c -lzstd
//	/tmp/libzstd-floor pages.zpages rounds [nochecksum]
//
// It prints, per round, the decompressed bytes per second of thread CPU
// time (GB/s, 1e9 bytes), then the best and median rounds.
#define ZSTD_STATIC_LINKING_ONLY
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

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
		fprintf(stderr, "usage: %s pages rounds [nochecksum]\n", argv[0]);
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
	unsigned char *out = malloc(cap);
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	if (argc > 3) ZSTD_DCtx_setParameter(dctx, ZSTD_d_forceIgnoreChecksum, ZSTD_d_ignoreChecksum);
	double *gbs = calloc(rounds, sizeof(double));
	long pages = 0;
	double total = 0;
	for (int r = -1; r < rounds; r++) {
		double t0 = cpu();
		total = 0;
		pages = 0;
		for (long p = 0; p < n;) {
			uint64_t len = 0;
			int shift = 0;
			while (in[p] & 0x80) { len |= (uint64_t)(in[p++] & 0x7f) << shift; shift += 7; }
			len |= (uint64_t)in[p++] << shift;
			size_t got = ZSTD_decompressDCtx(dctx, out, cap, in + p, len);
			if (ZSTD_isError(got)) { fprintf(stderr, "page %ld: %s\n", pages, ZSTD_getErrorName(got)); return 1; }
			total += got;
			pages++;
			p += len;
		}
		double dt = cpu() - t0;
		if (r >= 0) gbs[r] = total / dt / 1e9;
	}
	qsort(gbs, rounds, sizeof(double), cmp);
	printf("libzstd %s: %ld pages, %.0f bytes, %d rounds: best %.3f GB/s, median %.3f GB/s (%.1f ms)\n",
	       ZSTD_versionString(), pages, total, rounds, gbs[rounds - 1], gbs[rounds / 2], total / gbs[rounds / 2] / 1e6);
	return 0;
}
