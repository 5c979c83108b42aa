// Command _libzstd times libzstd's one-shot decompression
// (ZSTD_decompressDCtx with one reused context) of the page bodies in a
// pages file written by internal/snappy/_dumppages (uvarint length, body),
// the floor the ZSTD rows of docs/performance.md quote. Not part of the
// build: it is C, and needs libzstd-dev (apt-get install libzstd-dev).
//
//	cc -O2 -o /tmp/libzstd-floor main.c -lzstd
//	/tmp/libzstd-floor pages.zpages rounds [nochecksum | level]
//
// It prints the decompressed bytes per second of thread CPU time (GB/s,
// 1e9 bytes), best and median of the rounds. With a number as third
// argument it times compression instead: each page, decompressed first,
// compressed on its own (ZSTD_compressCCtx, no frame checksum, as
// parquet-cpp and DuckDB write) at that level, and prints the total
// compressed size.
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

// compress decompresses every page of in, then times compressing each on
// its own at level.
static int compress(unsigned char *in, long n, int rounds, int level, ZSTD_DCtx *dctx) {
	long pages = 0;
	for (long p = 0; p < n; pages++) {
		uint64_t len = 0;
		int shift = 0;
		while (in[p] & 0x80) { len |= (uint64_t)(in[p++] & 0x7f) << shift; shift += 7; }
		len |= (uint64_t)in[p++] << shift;
		p += len;
	}
	unsigned char **raw = calloc(pages, sizeof *raw);
	size_t *size = calloc(pages, sizeof *size);
	size_t maxSize = 0;
	long i = 0;
	for (long p = 0; p < n; i++) {
		uint64_t len = 0;
		int shift = 0;
		while (in[p] & 0x80) { len |= (uint64_t)(in[p++] & 0x7f) << shift; shift += 7; }
		len |= (uint64_t)in[p++] << shift;
		size_t cap = 16 << 20;
		raw[i] = malloc(cap);
		size[i] = ZSTD_decompressDCtx(dctx, raw[i], cap, in + p, len);
		if (ZSTD_isError(size[i])) { fprintf(stderr, "page %ld: %s\n", i, ZSTD_getErrorName(size[i])); return 1; }
		if (size[i] > maxSize) maxSize = size[i];
		p += len;
	}
	size_t bound = ZSTD_compressBound(maxSize);
	unsigned char *out = malloc(bound);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	double *gbs = calloc(rounds, sizeof(double));
	double total = 0, packed = 0;
	for (int r = -1; r < rounds; r++) {
		double t0 = cpu();
		total = packed = 0;
		for (i = 0; i < pages; i++) {
			size_t got = ZSTD_compress2(cctx, out, bound, raw[i], size[i]);
			if (ZSTD_isError(got)) { fprintf(stderr, "page %ld: %s\n", i, ZSTD_getErrorName(got)); return 1; }
			total += size[i];
			packed += got;
		}
		double dt = cpu() - t0;
		if (r >= 0) gbs[r] = total / dt / 1e9;
	}
	qsort(gbs, rounds, sizeof(double), cmp);
	printf("libzstd %s level %d: %ld pages, %.0f bytes to %.0f, %d rounds: best %.3f GB/s, median %.3f GB/s (%.1f ms)\n",
	       ZSTD_versionString(), level, pages, total, packed, rounds, gbs[rounds - 1], gbs[rounds / 2], total / gbs[rounds / 2] / 1e6);
	return 0;
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
	if (argc > 3 && atoi(argv[3]) != 0) return compress(in, n, rounds, atoi(argv[3]), dctx);
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
