/*
 * The kernel's own text against tracebound's rendering of the very same
 * records (and against libtraceevent's, the engine of trace-cmd report).
 *
 * A capture (ci/capture-render.sh) holds the kernel's `trace` text and the
 * raw pages of the same buffer.  Records are walked with tb_kbuf, paired
 * with the kernel's lines per CPU by timestamp, rendered, and the payload
 * texts compared; the kernel's hashed %p values and the /size of its %pS
 * symbols count as equal to anything.
 *
 * By default the committed sample tests/data/render/ is used.  Set
 * TB_RENDER_CAPTURE=DIR for another capture and TB_RENDER_REPORT=1 to
 * print the figures and every event type that differs.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_tep.h"
#include "testutil.h"

Suite *tb_suite_render_data(void);

typedef struct kline {
	int cpu;
	unsigned long long ts;
	const char *name, *payload;
	size_t name_len, payload_len;
} kline;

/* "comm-pid [cpu] flags ts: name: payload" (comm may hold spaces). */
static int parse_line(char *l, kline *k)
{
	char *b = strstr(l, "] "), *p, *q;
	if (!b || b - l < 4 || *(b - 4) != '[')
		return 0;
	k->cpu = atoi(b - 3);
	p = b + 2;
	p = strchr(p, ' '); /* after the flags */
	if (!p)
		return 0;
	while (*p == ' ')
		p++;
	k->ts = strtoull(p, &q, 10);
	if (q == p || q[0] != ':' || q[1] != ' ')
		return 0;
	/* "name: payload"; the kernel's syscall printers have no name */
	k->name = q + 2;
	k->payload = k->name;
	k->payload_len = strlen(k->payload);
	q = strchr(k->name, ':');
	k->name_len = q ? (size_t)(q - k->name) : 0;
	return 1;
}

static int hexc(int c)
{
	return isdigit(c) || (c >= 'a' && c <= 'f');
}

static size_t hexrun(const char *s, size_t i, size_t n)
{
	size_t k = i;
	while (k < n && hexc((unsigned char)s[k]))
		k++;
	return k - i;
}

/*
 * Equal, counting a 16-digit hex word in both texts (the kernel's hashed
 * %p) as equal and skipping the kernel's "/0xSIZE" after "+0xOFF".
 */
static int text_equal(const char *k, size_t kn, const char *t, size_t tn)
{
	size_t i = 0, j = 0;
	while (i < kn && j < tn) {
		int word = (i == 0 || !isalnum((unsigned char)k[i - 1])) &&
			   (j == 0 || !isalnum((unsigned char)t[j - 1]));
		if (word && hexrun(k, i, kn) == 16 &&
		    (i + 16 == kn || !isalnum((unsigned char)k[i + 16]))) {
			/* the kernel's hashed pointer: any hex word of ours */
			size_t w = 0;
			while (j + w < tn && (hexc((unsigned char)t[j + w]) || t[j + w] == 'x' ||
					      t[j + w] == 'X' || isdigit((unsigned char)t[j + w]) ||
					      (t[j + w] >= 'A' && t[j + w] <= 'F')))
				w++;
			if (w && (j + w == tn || !isalnum((unsigned char)t[j + w]))) {
				i += 16;
				j += w;
				continue;
			}
		}
		if (k[i] == '/' && i + 2 < kn && k[i + 1] == '0' && k[i + 2] == 'x' &&
		    (j == tn || t[j] != '/')) {
			size_t back = i;
			while (back > 0 && hexc((unsigned char)k[back - 1]))
				back--;
			if (back >= 3 && k[back - 1] == 'x' && k[back - 2] == '0' && k[back - 3] == '+') {
				i += 3 + hexrun(k, i + 3, kn);
				continue;
			}
		}
		if (k[i] != t[j])
			return 0;
		i++;
		j++;
	}
	/* a trailing "/0xSIZE" */
	if (j == tn && i + 2 < kn && k[i] == '/' && k[i + 1] == '0' && k[i + 2] == 'x' &&
	    i + 3 + hexrun(k, i + 3, kn) == kn)
		return 1;
	return i == kn && j == tn;
}

typedef struct evstat {
	const char *name;
	unsigned long n, tb_bad, tep_bad, both_ok_tep_only;
	char tb_example[512], tep_example[512];
} evstat;

typedef struct cmpres {
	unsigned long lines, paired, unpaired, tb_equal, tep_equal, tep_eq_tb_eq;
	unsigned long tb_unexplained; /* differences without TB_RENDER_N_UNRESOLVED */
	evstat *st;
} cmpres;

static int compare_capture(const char *dir, cmpres *res, int report)
{
	static rt_capture cap; /* large */
	char path[4096], *trace, *line, *save = NULL;
	kline *kl = NULL;
	size_t nk = 0, capk = 0;
	size_t *next_k;
	tb_render_env env;
	struct trace_seq seq;
	char out[8192];
	rt_rec *recs;
	size_t nrec;
	memset(res, 0, sizeof(*res));
	if (rt_open(&cap, dir, TB_RENDER_KNOWN_ENUMS | TB_RENDER_KERNEL_STYLE, 1) != 0)
		return -1;
	rt_env(&cap, &env);
	res->st = calloc(RT_MAX_ID, sizeof(*res->st));
	snprintf(path, sizeof(path), "%s/trace", dir);
	trace = rt_slurp(path, NULL);
	if (!trace)
		return -1;
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		kline k;
		if (line[0] == '#' || !parse_line(line, &k))
			continue;
		if (nk == capk) {
			capk = capk ? capk * 2 : 4096;
			kl = realloc(kl, capk * sizeof(*kl));
		}
		kl[nk++] = k;
	}
	res->lines = nk;
	next_k = calloc(RT_MAX_CPU, sizeof(*next_k));
	trace_seq_init(&seq);
	recs = rt_records(&cap, &nrec);
	for (size_t ri = 0; ri < nrec; ri++) {
		const rt_rec *r = &recs[ri];
		rt_event *e = r->id >= 0 ? cap.ev[r->id] : NULL;
		tb_render_result rr;
		struct tep_record trec;
		kline *k;
		evstat *st;
		int tb_ok, tep_ok;
		size_t *ki = &next_k[r->cpu];
		/* the kernel line of this CPU with this timestamp */
		while (*ki < nk && (kl[*ki].cpu != r->cpu || kl[*ki].ts < r->ts))
			(*ki)++;
		if (*ki >= nk || kl[*ki].ts != r->ts || !e) {
			res->unpaired++;
			if (report > 2)
				printf("unpaired cpu%d ts %llu id %d\n", r->cpu,
				       (unsigned long long)r->ts, r->id);
			continue;
		}
		k = &kl[(*ki)++];
		if (!strcmp(e->tev->system, "syscalls") || !strcmp(e->tev->system, "ftrace")) {
			/* the kernel's own printers: no event name */
		} else if (k->name_len != strlen(e->tev->name) ||
			   memcmp(k->name, e->tev->name, k->name_len) != 0) {
			res->unpaired++;
			continue;
		} else {
			k->payload += k->name_len + 1;
			k->payload_len -= k->name_len + 1;
			if (k->payload_len && k->payload[0] == ' ') {
				k->payload++;
				k->payload_len--;
			}
		}
		res->paired++;
		tb_render(e->prog, &env, r->p, r->len, out, sizeof(out), &rr);
		memset(&trec, 0, sizeof(trec));
		trec.ts = r->ts;
		trec.cpu = r->cpu;
		trec.data = (void *)r->p;
		trec.size = (int)r->len;
		trace_seq_reset(&seq);
		tep_print_event(cap.tep, &seq, &trec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		tb_ok = text_equal(k->payload, k->payload_len, out, rr.len);
		if (!tb_ok && !(rr.notes & TB_RENDER_N_UNRESOLVED))
			res->tb_unexplained++;
		tep_ok = text_equal(k->payload, k->payload_len, seq.buffer, strlen(seq.buffer));
		res->tb_equal += (unsigned long)tb_ok;
		res->tep_equal += (unsigned long)tep_ok;
		res->tep_eq_tb_eq += (unsigned long)(tep_ok && tb_ok);
		st = &res->st[r->id];
		st->name = e->tev->name;
		st->n++;
		if (!tb_ok && !st->tb_bad++)
			snprintf(st->tb_example, sizeof(st->tb_example),
				 "kernel: %.*s\n      tb:     %.200s",
				 (int)(k->payload_len > 200 ? 200 : k->payload_len), k->payload, out);
		if (!tep_ok && !st->tep_bad++)
			snprintf(st->tep_example, sizeof(st->tep_example),
				 "kernel: %.*s\n      tep:    %.200s",
				 (int)(k->payload_len > 200 ? 200 : k->payload_len), k->payload,
				 seq.buffer);
	}
	trace_seq_destroy(&seq);
	if (report) {
		printf("render compare %s: %lu kernel lines, %lu paired with raw records, %lu raw records unpaired\n",
		       dir, res->lines, res->paired, res->unpaired);
		printf("  tracebound equal to the kernel: %lu (%.2f%%)\n", res->tb_equal,
		       res->paired ? 100.0 * (double)res->tb_equal / (double)res->paired : 0.0);
		printf("  tracebound differences not explained by unresolved enum names: %lu\n",
		       res->tb_unexplained);
		printf("  libtraceevent equal to the kernel: %lu (%.2f%%)\n", res->tep_equal,
		       res->paired ? 100.0 * (double)res->tep_equal / (double)res->paired : 0.0);
		printf("  where libtraceevent agrees, tracebound agrees: %lu of %lu (%.3f%%)\n",
		       res->tep_eq_tb_eq, res->tep_equal,
		       res->tep_equal ? 100.0 * (double)res->tep_eq_tb_eq / (double)res->tep_equal : 0.0);
		for (int id = 0; id < RT_MAX_ID; id++) {
			evstat *st = &res->st[id];
			if (!st->n || (!st->tb_bad && !st->tep_bad))
				continue;
			printf("  %-32s n=%-6lu tb_diff=%-6lu tep_diff=%-6lu%s\n", st->name, st->n,
			       st->tb_bad, st->tep_bad,
			       tb_render_ok(cap.ev[id]->prog) ? "" : "  [tb: print fmt not compiled]");
			if (st->tb_bad)
				printf("      %s\n", st->tb_example);
			if (st->tep_bad && report > 1)
				printf("      %s\n", st->tep_example);
		}
	}
	free(next_k);
	free(recs);
	free(kl);
	free(trace);
	return 0;
}

/* The committed sample (or TB_RENDER_CAPTURE): tracebound agrees with the
 * kernel on more lines than libtraceevent, wherever libtraceevent agrees
 * tracebound does too (>= 99.9%), and every other difference is flagged
 * TB_RENDER_N_UNRESOLVED. */
START_TEST(kernel_text_agreement)
{
	const char *dir = getenv("TB_RENDER_CAPTURE");
	const char *rep = getenv("TB_RENDER_REPORT");
	cmpres res;
	if (!dir)
		dir = tb_test_path("tests/data/render");
	ck_assert_msg(compare_capture(dir, &res, rep ? atoi(rep) : 0) == 0, "cannot open %s", dir);
	ck_assert_uint_gt(res.paired, 1000);
	ck_assert_uint_ge(res.paired * 100, res.lines * 99); /* nearly every line pairs */
	ck_assert_uint_gt(res.tb_equal, res.tep_equal);
	ck_assert_uint_ge(res.tep_eq_tb_eq * 1000, res.tep_equal * 999);
	ck_assert_uint_ge(res.tb_equal * 100, res.paired * 98);
	/* every line tracebound renders differently is one the kernel prints
	 * with enum values the capture does not hold (reported by a note) */
	ck_assert_uint_eq(res.tb_unexplained, 0);
	free(res.st);
}
END_TEST

/* ---- tracebound report: the rendered default output ---- */

/* stdout of a shell command (the shared runner, $CLI = the built CLI). */
static char *run_cmd(const char *cmd)
{
	tb_test_run r;
	char *out;
	tb_test_sh(cmd, &r);
	ck_assert_msg(r.status == 0, "%s: exit %d: %s", cmd, r.status, r.err);
	out = r.out;
	r.out = NULL;
	tb_test_run_free(&r);
	return out;
}

START_TEST(report_renders_events)
{
	char path[4096], cmd[8192], other[4096];
	const char *cli = "\"$CLI\"";
	char *out, *a, *b, *lines, *raw_lines;
	static const char *const others[] = { "sched4k.v7.dat", "sched4k.v6.dat" };
	snprintf(path, sizeof(path), "%s", tb_test_path("tests/data/sched4k.v7zstd.dat"));
	snprintf(cmd, sizeof(cmd), "%s report '%s' | head -8", cli, path);
	out = run_cmd(cmd);
	/* the kernel's syscall printer, hrtimer modes by name, sched_switch */
	ck_assert_msg(strstr(out, " [001]   192.833676: sys_enter_newfstat:   "
				  "sys_newfstat(fd: 5, statbuf: 0x7fff89a3be00)\n"), "%s", out);
	ck_assert(strstr(out, "sys_exit_newfstat:    sys_newfstat -> 0x0\n"));
	ck_assert(strstr(out, "hrtimer_setup:        hrtimer=ffffc90001b3bbb8 "
			      "clockid=CLOCK_MONOTONIC mode=ABS\n"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s report --events sched_switch '%s' | sed -n 2p", cli, path);
	out = run_cmd(cmd);
	ck_assert_msg(strstr(out, "sched_switch:         prev_comm=") &&
		      strstr(out, " ==> next_comm="), "%s", out);
	free(out);
	/* one line per event, as --raw */
	snprintf(cmd, sizeof(cmd), "%s report '%s' | wc -l", cli, path);
	lines = run_cmd(cmd);
	snprintf(cmd, sizeof(cmd), "%s report --raw '%s' | wc -l", cli, path);
	raw_lines = run_cmd(cmd);
	ck_assert_str_eq(lines, raw_lines);
	ck_assert_int_eq(atoi(lines), 63846);
	free(lines);
	free(raw_lines);
	/* the same events in the other containers (when the shared samples
	 * are there) render the same */
	snprintf(cmd, sizeof(cmd), "%s report '%s' | md5sum", cli, path);
	a = run_cmd(cmd);
	for (size_t i = 0; i < 2; i++) {
		snprintf(other, sizeof(other), "%s../shared/samples/%s", tb_test_path(""), others[i]);
		if (!tb_test_exists(other))
			continue;
		snprintf(cmd, sizeof(cmd), "%s report '%s' | md5sum", cli, other);
		b = run_cmd(cmd);
		ck_assert_str_eq(a, b);
		free(b);
	}
	free(a);
}
END_TEST

Suite *tb_suite_render_data(void)
{
	Suite *s = suite_create("render_data");
	TCase *t = tcase_create("kernel");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, kernel_text_agreement);
	suite_add_tcase(s, t);
	t = tcase_create("report");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, report_renders_events);
	suite_add_tcase(s, t);
	return s;
}
