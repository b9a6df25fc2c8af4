/*
 * Render the real records of a capture (default: the committed sample
 * tests/data/render, or the directory given as argv[1], e.g. a bigger
 * ci/capture-render.sh capture) with tracebound and with libtraceevent's
 * tep_print_event (the engine of trace-cmd report), each over the same
 * records and the same lookups; print both rates and the ratio.  Then,
 * when the sample trace.dat and trace-cmd are there, the whole
 * `tracebound report` against `trace-cmd report -N` on the same file
 * (TB_CLI, else build/tracebound under TB_SRCDIR).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "../tests/render_tep.h"

#define MIN_SECONDS 0.5

/* CPU time of this process, not wall time: on a shared machine the time
 * spent descheduled is not the code's. */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU time (user + system) of the children waited for so far. */
static double children_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Best of 5 runs of a shell command, in the CPU time it (and its shell)
 * used. */
static double best_of(const char *cmd)
{
	double best = 1e9;
	for (int i = 0; i < 5; i++) {
		double t0 = children_cpu();
		if (system(cmd) != 0)
			return -1;
		if (children_cpu() - t0 < best)
			best = children_cpu() - t0;
	}
	return best;
}

static void report_vs_trace_cmd(const char *src)
{
	char dat[2048], cli[2048], cmd[8192];
	const char *env = getenv("TB_CLI");
	double tb, tc;
	FILE *f;
	snprintf(dat, sizeof(dat), "%s/tests/data/sched4k.v7zstd.dat", src ? src : ".");
	snprintf(cli, sizeof(cli), "%s", env ? env : "");
	if (!env)
		snprintf(cli, sizeof(cli), "%s/build/tracebound", src ? src : ".");
	f = fopen(dat, "rb");
	if (!f || system("command -v trace-cmd >/dev/null 2>&1") != 0) {
		if (f)
			fclose(f);
		printf("  (no sample trace.dat or no trace-cmd: report timing skipped)\n");
		return;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' report '%s' >/dev/null", cli, dat);
	tb = best_of(cmd);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -N -i '%s' >/dev/null 2>&1", dat);
	tc = best_of(cmd);
	if (tb <= 0 || tc <= 0) {
		printf("  (report timing failed)\n");
		return;
	}
	printf("render_bench: report of sched4k.v7zstd.dat (63,846 events), best of 5, CPU time\n");
	printf("  tracebound report:    %.3f s\n", tb);
	printf("  trace-cmd report -N:  %.3f s\n", tc);
	printf("  ratio: %.1fx\n", tc / tb);
	printf("figure: report_small_vs_trace_cmd %.2f\n", tc / tb);
}

int main(int argc, char **argv)
{
	static rt_capture cap;
	char dir[2048];
	const char *src = getenv("TB_SRCDIR");
	rt_rec *recs;
	size_t n = 0, bytes = 0;
	tb_render_env env;
	char out[8192];
	struct trace_seq seq;
	double t0, tb_s, tep_s;
	unsigned long rounds_tb = 0, rounds_tep = 0;
	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "%s/tests/data/render", src ? src : ".");
	if (rt_open(&cap, dir, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE, 1) != 0) {
		fprintf(stderr, "render_bench: cannot open capture %s\n", dir);
		return 1;
	}
	rt_env(&cap, &env);
	recs = rt_records(&cap, &n);
	/* only events with a known format */
	{
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (recs[i].id >= 0 && cap.ev[recs[i].id])
				recs[k++] = recs[i];
		n = k;
	}
	if (!n) {
		fprintf(stderr, "render_bench: no records in %s\n", dir);
		return 1;
	}
	/* tracebound */
	t0 = now();
	do {
		for (size_t i = 0; i < n; i++) {
			tb_render_result res;
			tb_render(cap.ev[recs[i].id]->prog, &env, recs[i].p, recs[i].len, out,
				  sizeof(out), &res);
			bytes += res.len;
		}
		rounds_tb++;
	} while (now() - t0 < MIN_SECONDS);
	tb_s = (now() - t0) / (double)rounds_tb;
	/* libtraceevent */
	trace_seq_init(&seq);
	t0 = now();
	do {
		for (size_t i = 0; i < n; i++) {
			struct tep_record tr;
			memset(&tr, 0, sizeof(tr));
			tr.ts = recs[i].ts;
			tr.cpu = recs[i].cpu;
			tr.data = (void *)recs[i].p;
			tr.size = (int)recs[i].len;
			trace_seq_reset(&seq);
			tep_print_event(cap.tep, &seq, &tr, "%s", TEP_PRINT_INFO);
		}
		rounds_tep++;
	} while (now() - t0 < MIN_SECONDS);
	tep_s = (now() - t0) / (double)rounds_tep;
	trace_seq_destroy(&seq);
	printf("render_bench: %zu records of %s (%zu bytes of text per round)\n", n, dir,
	       bytes / rounds_tb);
	printf("  tracebound tb_render:         %8.2f M events/s\n", (double)n / tb_s / 1e6);
	printf("  libtraceevent tep_print_event: %8.2f M events/s\n", (double)n / tep_s / 1e6);
	printf("  ratio: %.1fx\n", tep_s / tb_s);
	printf("figure: render_vs_tep %.2f\n", tep_s / tb_s);
	report_vs_trace_cmd(src);
	return 0;
}
