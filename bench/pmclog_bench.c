/*
 * pmclog decoding speed: a ~64 MiB synthetic system-wide sampling log
 * (amd64, callchains of 1..32 PCs among forks, execs, maps and exits),
 * decoded from memory one-shot and fed in 4 KiB pieces, best of 3.
 * libpmc exists only on FreeBSD, so there is no reference to compare with
 * on this machine.
 *
 *   pmclog_bench                      the decoding figures
 *   pmclog_bench --write FILE MIB     write a sampling log of about MIB MiB
 *                                     (bench/pmclog_print_bench.sh times the
 *                                     CLI printing it)
 *   pmclog_bench --decode FILE        decode FILE read in 64 KiB pieces, as
 *                                     the CLI reads it, printing nothing: the
 *                                     in-run yardstick of that script
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracebound/pmclog.h"
/* The test-only writer makes the log (one writer for tests and bench). */
#include "../tests/support/pmclog_writer.c"

#define TARGET_BYTES (64u << 20)

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Decode everything; returns records, or 0 on an unexpected end.
 * piece 0: one shot.  all_pcs: also read every CALLCHAIN slot. */
static size_t decode(tb_pmclog *p, const uint8_t *buf, size_t len, size_t piece,
		     int all_pcs, uint64_t *sink)
{
	tb_pmclog_event ev;
	tb_error err;
	size_t pos = 0, n = 0;
	uint64_t acc = 0;
	tb_pmclog_init(p, NULL);
	for (;;) {
		tb_status st = tb_pmclog_next(p, &ev, &err);
		if (st == TB_OK) {
			n++;
			if (ev.type == TB_PMCLOG_CALLCHAIN) {
				acc += (uint64_t)ev.u.cc.pid + ev.u.cc.npc;
				if (all_pcs) {
					uint64_t pcs[512];
					uint32_t k = tb_pmclog_cc_copy(&ev, 0, pcs, 512);
					for (uint32_t i = 0; i < k; i++)
						acc += pcs[i];
				}
			}
			continue;
		}
		if (st == TB_NEED_MORE) {
			size_t k = piece ? piece : len;
			if (pos == len) {
				tb_pmclog_close(p);
				continue;
			}
			if (k > len - pos)
				k = len - pos;
			if (tb_pmclog_feed(p, buf + pos, k) != TB_OK)
				return 0;
			pos += k;
			continue;
		}
		if (st != TB_END) {
			fprintf(stderr, "pmclog_bench: offset %llu: %s\n",
				(unsigned long long)err.offset, err.what);
			return 0;
		}
		break;
	}
	*sink += acc;
	return n;
}

/* The same shape of log as main() times, about `mib` MiB, to a file. */
static int write_log(const char *path, unsigned long mib)
{
	tb_plw w;
	FILE *f;
	size_t left = (size_t)mib << 20, chunk = (size_t)64 << 20;
	uint32_t seed = 2026;
	if (!(f = fopen(path, "wb")))
		return perror(path), 2;
	/* In 64 MiB sessions (one INITIALIZE, one CLOSELOG each), so memory
	 * stays bounded whatever the size asked for. */
	while (left > 0) {
		size_t want = left < chunk ? left : chunk;
		tb_plw_init_arch(&w, TB_PLW_AMD64);
		tb_plw_session_sampling(&w, want / 165 ? want / 165 : 1, 32, seed++);
		if (fwrite(w.buf, 1, w.len, f) != w.len)
			return perror(path), 2;
		left -= want;
		tb_plw_free(&w);
	}
	if (fclose(f) != 0)
		return perror(path), 2;
	return 0;
}

/* Decode a file read in 64 KiB pieces; prints records and seconds. */
static int decode_file(const char *path)
{
	static uint8_t buf[64 * 1024];
	tb_pmclog *p = malloc(sizeof(*p));
	tb_pmclog_event ev;
	tb_error err;
	FILE *f = fopen(path, "rb");
	size_t n = 0;
	uint64_t acc = 0;
	double t0 = now();
	if (!f || !p)
		return perror(path), 2;
	tb_pmclog_init(p, NULL);
	for (;;) {
		tb_status st = tb_pmclog_next(p, &ev, &err);
		if (st == TB_OK) {
			n++;
			acc += ev.offset;
		} else if (st == TB_NEED_MORE) {
			size_t k = fread(buf, 1, sizeof(buf), f);
			if (k == 0)
				tb_pmclog_close(p);
			else if (tb_pmclog_feed(p, buf, k) != TB_OK)
				return 2;
		} else if (st == TB_END) {
			break;
		} else {
			fprintf(stderr, "%s: offset %llu: %s\n", path,
				(unsigned long long)err.offset, err.what);
			return 1;
		}
	}
	printf("%zu records in %.4f s (checksum %llu)\n", n, now() - t0,
	       (unsigned long long)acc);
	fclose(f);
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	tb_plw w;
	tb_pmclog *p = malloc(sizeof(*p));
	uint64_t sink = 0;
	size_t nrec;
	static const struct { const char *name; size_t piece; int pcs; } modes[] = {
		{ "one-shot", 0, 0 },
		{ "4 KiB pieces", 4096, 0 },
		{ "one-shot, every PC copied", 0, 1 },
		{ "4 KiB pieces, every PC copied", 4096, 1 },
	};
	if (argc == 4 && !strcmp(argv[1], "--write"))
		return write_log(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "--decode"))
		return decode_file(argv[2]);
	if (!p)
		return 1;
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	tb_plw_session_sampling(&w, TARGET_BYTES / 165, 32, 2026);
	printf("pmclog: %.1f MiB synthetic amd64 sampling log "
	       "(libpmc is FreeBSD-only: no reference decoder here)\n",
	       (double)w.len / (1 << 20));
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		double best = 1e30;
		nrec = 0;
		for (int rep = 0; rep < 3; rep++) {
			double t0 = now(), dt;
			nrec = decode(p, w.buf, w.len, modes[m].piece, modes[m].pcs, &sink);
			dt = now() - t0;
			if (nrec == 0)
				return 1;
			if (dt < best)
				best = dt;
		}
		printf("  %-28s %8.0f MB/s  %7.2f M records/s  (%zu records)\n",
		       modes[m].name, (double)w.len / best / 1e6,
		       (double)nrec / best / 1e6, nrec);
	}
	printf("  (checksum %llu)\n", (unsigned long long)sink);
	tb_plw_free(&w);
	free(p);
	return 0;
}
