/*
 * pmclog decoder: every record kind on every writer arch, every error and
 * libpmc bug of spec section 8, every prefix, every split, golden CLI
 * output, TSC conversion.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracebound/pmclog.h"
#include "pmclog_snap.h"
#include "pmclog_writer.h"
#include "testutil.h"

Suite *tb_suite_pmclog(void);

/* ------------------------------------------------------------------ */
/* Helpers.                                                           */

/* A decoder is 64 KiB: keep it off the stack. */
static tb_pmclog *new_decoder(void)
{
	tb_pmclog *p = malloc(sizeof(*p));
	ck_assert_ptr_nonnull(p);
	return p;
}

typedef tb_pmclog_snap snap;

/* The outcome of a decode: its events, then how it ended. */
typedef struct run {
	snap *ev;
	size_t n, cap;
	tb_status end;
	tb_error err;
} run;

static void run_add(run *r, const tb_pmclog_event *ev)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ev = realloc(r->ev, r->cap * sizeof(*r->ev));
		ck_assert_ptr_nonnull(r->ev);
	}
	tb_pmclog_take_snap(ev, &r->ev[r->n++]);
}

static void run_free(run *r)
{
	free(r->ev);
	memset(r, 0, sizeof(*r));
}

/* Decode `data` fed in pieces: piece k has size sizes[k % nsizes]
 * (nsizes 0: one piece).  Each piece is an exact-size heap copy so ASan
 * sees any over-read.  Closes the input at the end when `close`. */
static void decode_pieces(const tb_pmclog_options *opt, const uint8_t *data,
			  size_t len, const size_t *sizes, size_t nsizes,
			  int close, run *r)
{
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	size_t pos = 0, k = 0, guard = 0;
	uint8_t *piece = NULL;
	memset(r, 0, sizeof(*r));
	tb_pmclog_init(p, opt);
	for (;;) {
		tb_status st = tb_pmclog_next(p, &ev, &r->err);
		ck_assert_uint_lt(guard++, 4 * len + 1000);
		if (st == TB_OK) {
			run_add(r, &ev);
			continue;
		}
		if (st == TB_NEED_MORE) {
			size_t n = nsizes ? sizes[k++ % nsizes] : len;
			free(piece);
			piece = NULL;
			if (pos == len) {
				if (!close) {
					r->end = TB_NEED_MORE;
					break;
				}
				tb_pmclog_close(p);
				continue;
			}
			if (n == 0 || n > len - pos)
				n = n ? len - pos : 1;
			piece = tb_test_dup(data + pos, n);
			ck_assert_int_eq(tb_pmclog_feed(p, piece, n), TB_OK);
			pos += n;
			continue;
		}
		r->end = st;
		break;
	}
	free(piece);
	free(p);
}

static void decode_all(const tb_pmclog_options *opt, const uint8_t *data,
		       size_t len, run *r)
{
	decode_pieces(opt, data, len, NULL, 0, 1, r);
}

static void assert_same(const run *a, const run *b)
{
	size_t i;
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_int_eq(a->end, b->end);
	for (i = 0; i < a->n; i++) {
		ck_assert_msg(tb_pmclog_snap_eq(&a->ev[i], &b->ev[i]),
			      "event %zu differs", i);
	}
	if (tb_is_error(a->end)) {
		ck_assert_uint_eq(a->err.offset, b->err.offset);
		ck_assert_str_eq(a->err.what, b->err.what);
	}
}

static void write_arch(tb_plw *w, int arch, size_t *nrec)
{
	size_t n;
	tb_plw_init_arch(w, arch);
	n = tb_plw_session_all(w);
	if (nrec)
		*nrec = n;
}

static uint64_t A(unsigned a, uint64_t v)
{
	return a == 8 ? v : (uint32_t)v;
}

static int str_is(tb_pmclog_str s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.ptr, lit, s.len) == 0;
}

/* ------------------------------------------------------------------ */
/* Every record kind, exact values, every arch.                       */

START_TEST(all_kinds_every_arch)
{
	int arch = _i;
	tb_plw w;
	tb_pmclog_options opt;
	run r;
	size_t nrec, i = 0;
	unsigned a;
	int legacy;
	const snap *s;
	write_arch(&w, arch, &nrec);
	tb_plw_arch_options(arch, &opt);
	decode_all(&opt, w.buf, w.len, &r);
	ck_assert_msg(r.end == TB_END, "%s: end %d", tb_plw_arch_name(arch), r.end);
	ck_assert_uint_eq(r.n, nrec);
	a = w.a;
	legacy = w.legacy;
	/* Offsets are contiguous and counts 1-based. */
	for (i = 0; i < r.n; i++) {
		ck_assert_uint_eq(r.ev[i].ev.count, i + 1);
		ck_assert_uint_eq(r.ev[i].ev.addr_size, a);
		ck_assert_uint_eq(r.ev[i].ev.legacy, legacy);
		ck_assert_uint_eq(r.ev[i].ev.big_endian, w.be);
		if (i)
			ck_assert_uint_eq(r.ev[i].ev.offset,
					  r.ev[i - 1].ev.offset + r.ev[i - 1].ev.len);
		if (!legacy)
			ck_assert_uint_eq(r.ev[i].ev.tsc, 0x100000000ULL + 2400 * i);
		else
			ck_assert_uint_eq(r.ev[i].ev.ts_nsec, 1000 * (i + 1));
	}
	ck_assert_uint_eq(r.ev[r.n - 1].ev.offset + r.ev[r.n - 1].ev.len, w.len);
	i = 0;
	s = &r.ev[i++]; /* INITIALIZE */
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_INITIALIZE);
	ck_assert_uint_eq(s->ev.u.i.version, w.version);
	ck_assert_uint_eq(s->ev.u.i.arch, w.cputype);
	if (!legacy) {
		ck_assert_uint_eq(s->ev.len, w.ts32 ? 104 : 112);
		ck_assert_uint_eq(s->ev.u.i.tsc_freq, w.tsc_freq);
		ck_assert_int_eq(s->ev.u.i.ts_sec, TB_PLW_WALL_SEC);
		ck_assert_int_eq(s->ev.u.i.ts_nsec, TB_PLW_WALL_NSEC);
		ck_assert_uint_eq(s->ev.u.i.cpuid.len, strlen(TB_PLW_CPUID));
	} else {
		ck_assert_uint_eq(s->ev.len, 20);
		ck_assert_uint_eq(s->ev.ts_sec, 1700000000u);
	}
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PMCALLOCATE);
	ck_assert_uint_eq(s->ev.u.a.pmcid, 0x100);
	ck_assert_uint_eq(s->ev.u.a.event, 0x1234);
	ck_assert_uint_eq(s->ev.u.a.flags, 0x180);
	ck_assert_uint_eq(s->ev.u.a.rate, legacy ? 0 : 65536);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PMCALLOCATEDYN);
	ck_assert_uint_eq(s->ev.u.ad.pmcid, 0x200);
	ck_assert_uint_eq(s->ev.u.ad.event, 0x2000);
	ck_assert_uint_eq(s->ev.u.ad.flags, 0x80);
	ck_assert_uint_eq(s->ev.u.ad.evname.len, strlen("PAGE_FAULT.ALL"));
	ck_assert_uint_eq(s->ev.u.ad.name_at_40, !legacy);
	ck_assert_uint_eq(s->ev.u.ad.rate, legacy ? 0 : 1000);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PMCATTACH);
	ck_assert_uint_eq(s->ev.u.t.pmcid, 0xFFF20300u);
	ck_assert_int_eq(s->ev.u.t.pid, 1234);
	ck_assert_uint_eq(s->ev.u.t.pathname.len, strlen("/usr/bin/make"));
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_MAP_IN);
	ck_assert_int_eq(s->ev.u.mi.pid, -1);
	ck_assert_uint_eq(s->ev.u.mi.start, A(a, 0xffffffff80200000ULL));
	ck_assert_uint_eq(s->ev.u.mi.pathname.len, strlen("/boot/kernel/kernel"));
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_MAP_IN);
	ck_assert_int_eq(s->ev.u.mi.pid, 1234);
	ck_assert_uint_eq(s->ev.u.mi.start, 0x200000);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PROCEXEC);
	ck_assert_int_eq(s->ev.u.x.pid, 1234);
	ck_assert_uint_eq(s->ev.u.x.pmcid, 0xFFF20300u);
	if (!legacy && (w.version >> 24) >= 0x0A) {
		ck_assert_uint_eq(s->ev.u.x.has_dyn, 1);
		ck_assert_uint_eq(s->ev.u.x.baseaddr, 0x1000000);
		ck_assert_uint_eq(s->ev.u.x.dynaddr, 0x200000);
	} else {
		ck_assert_uint_eq(s->ev.u.x.has_dyn, 0);
		ck_assert_uint_eq(s->ev.u.x.entryaddr, 0x1000000);
	}
	ck_assert_uint_eq(s->ev.u.x.pathname.len, strlen("/usr/bin/make"));
	if (!legacy) {
		s = &r.ev[i++];
		ck_assert_int_eq(s->ev.type, TB_PMCLOG_PROC_CREATE);
		ck_assert_int_eq(s->ev.u.pc.pid, 1235);
		ck_assert_uint_eq(s->ev.u.pc.flags, 0x10004000u);
		ck_assert_uint_eq(s->ev.u.pc.pcomm.len, 4);
		s = &r.ev[i++];
		ck_assert_int_eq(s->ev.type, TB_PMCLOG_THR_CREATE);
		ck_assert_int_eq(s->ev.u.tc.tid, 100123);
		ck_assert_int_eq(s->ev.u.tc.pid, 1235);
		ck_assert_uint_eq(s->ev.u.tc.flags, 0x4000);
		ck_assert_uint_eq(s->ev.u.tc.tdname.len, 4);
	}
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PROCFORK);
	ck_assert_int_eq(s->ev.u.f.oldpid, 1234);
	ck_assert_int_eq(s->ev.u.f.newpid, 1235);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_CALLCHAIN);
	ck_assert_int_eq(s->ev.u.cc.pid, 1234);
	ck_assert_int_eq(s->ev.u.cc.tid, legacy ? 0 : 100100);
	ck_assert_uint_eq(s->ev.u.cc.pmcid, 0x100);
	ck_assert_uint_eq(s->ev.u.cc.cpuflags, 3u << 16 | 1u);
	ck_assert_uint_eq(s->ev.u.cc.npc, 3);
	ck_assert_uint_eq(s->ev.u.cc.pc_first, 0);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_CALLCHAIN);
	ck_assert_uint_eq(s->ev.u.cc.npc, 1);
	ck_assert_uint_eq(s->ev.u.cc.cpuflags, 1u << 16);
	if (!legacy) {
		s = &r.ev[i++];
		ck_assert_int_eq(s->ev.type, TB_PMCLOG_CALLCHAIN);
		ck_assert_uint_eq(s->ev.u.cc.npc, 15 + 8 / a);
		ck_assert_uint_eq(s->ev.u.cc.nparts, 3);
		ck_assert_uint_eq(s->ev.u.cc.parts[0].type, TB_PMCLOG_PART_IBS_FETCH);
		ck_assert_uint_eq(s->ev.u.cc.parts[0].first, 8 / a);
		ck_assert_uint_eq(s->ev.u.cc.parts[0].nslots, 4);
		ck_assert_uint_eq(s->ev.u.cc.parts[1].type, TB_PMCLOG_PART_IBS_OP);
		ck_assert_uint_eq(s->ev.u.cc.parts[1].first, 8 / a + 4);
		ck_assert_uint_eq(s->ev.u.cc.parts[1].nslots, 8);
		ck_assert_uint_eq(s->ev.u.cc.parts[2].type, TB_PMCLOG_PART_CALLCHAIN);
		ck_assert_uint_eq(s->ev.u.cc.pc_first, 8 / a + 12);
	} else {
		s = &r.ev[i++];
		ck_assert_int_eq(s->ev.type, TB_PMCLOG_PCSAMPLE);
		ck_assert_int_eq(s->ev.u.s.pid, 1234);
		ck_assert_uint_eq(s->ev.u.s.pc, 0x2000a0);
		ck_assert_uint_eq(s->ev.u.s.pmcid, 0x100);
		ck_assert_uint_eq(s->ev.u.s.usermode, 1);
	}
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PROCCSW);
	ck_assert_uint_eq(s->ev.u.c.pmcid, 0xFFF20300u);
	ck_assert_int_eq(s->ev.u.c.pid, 1234);
	ck_assert_int_eq(s->ev.u.c.tid, legacy ? 0 : 100100);
	ck_assert_uint_eq(s->ev.u.c.value, 123456789012ULL);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PROCEXIT);
	ck_assert_uint_eq(s->ev.u.e.pmcid, 0xFFF20300u);
	ck_assert_int_eq(s->ev.u.e.pid, 1234);
	ck_assert_uint_eq(s->ev.u.e.value, 9876543210ULL);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_USERDATA);
	ck_assert_uint_eq(s->ev.u.u.userdata, 0xdeadbeefu);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_MAP_OUT);
	ck_assert_int_eq(s->ev.u.mo.pid, 1234);
	ck_assert_uint_eq(s->ev.u.mo.start, 0x200000);
	ck_assert_uint_eq(s->ev.u.mo.end, 0x3a0000);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_SYSEXIT);
	ck_assert_int_eq(s->ev.u.se.pid, 1235);
	if (!legacy) {
		s = &r.ev[i++];
		ck_assert_int_eq(s->ev.type, TB_PMCLOG_THR_EXIT);
		ck_assert_int_eq(s->ev.u.te.tid, 100123);
	}
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_DROPNOTIFY);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_PMCDETACH);
	ck_assert_uint_eq(s->ev.u.d.pmcid, 0xFFF20300u);
	ck_assert_int_eq(s->ev.u.d.pid, 1234);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_UNKNOWN);
	ck_assert_uint_eq(s->ev.raw_type, 0x30);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_CLOSELOG);
	s = &r.ev[i++];
	ck_assert_int_eq(s->ev.type, TB_PMCLOG_CALLCHAIN);
	ck_assert_int_eq(s->ev.u.cc.pid, 7);
	ck_assert_uint_eq(i, r.n);
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

/* Strings and PC slots through the pointers the event carries. */
START_TEST(strings_and_pcs_by_pointer)
{
	int arch = _i;
	tb_plw w;
	tb_pmclog_options opt;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_error err;
	tb_status st;
	size_t seen = 0;
	write_arch(&w, arch, NULL);
	tb_plw_arch_options(arch, &opt);
	ck_assert_int_eq(tb_pmclog_open_buffer(p, &opt, w.buf, w.len), TB_OK);
	while ((st = tb_pmclog_next(p, &ev, &err)) == TB_OK) {
		switch (ev.type) {
		case TB_PMCLOG_INITIALIZE:
			if (!ev.legacy)
				ck_assert(str_is(ev.u.i.cpuid, TB_PLW_CPUID));
			break;
		case TB_PMCLOG_PMCALLOCATEDYN:
			ck_assert(str_is(ev.u.ad.evname, "PAGE_FAULT.ALL"));
			break;
		case TB_PMCLOG_PMCATTACH:
			ck_assert(str_is(ev.u.t.pathname, "/usr/bin/make"));
			break;
		case TB_PMCLOG_PROCEXEC:
			ck_assert(str_is(ev.u.x.pathname, "/usr/bin/make"));
			break;
		case TB_PMCLOG_MAP_IN:
			ck_assert(str_is(ev.u.mi.pathname, ev.u.mi.pid < 0
						   ? "/boot/kernel/kernel"
						   : "/lib/libc.so.7"));
			break;
		case TB_PMCLOG_THR_CREATE:
			ck_assert(str_is(ev.u.tc.tdname, "make"));
			break;
		case TB_PMCLOG_PROC_CREATE:
			ck_assert(str_is(ev.u.pc.pcomm, "make"));
			break;
		case TB_PMCLOG_CALLCHAIN:
			if (ev.u.cc.pid == 1234 && ev.u.cc.npc == 3) {
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, 0), 0x201234);
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, 1), 0x205678);
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, 2), 0x209abc);
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, 3), 0);
				{
					uint64_t pcs[4] = { 9, 9, 9, 9 };
					ck_assert_uint_eq(tb_pmclog_cc_copy(&ev, 1, pcs, 4), 2);
					ck_assert_uint_eq(pcs[0], 0x205678);
					ck_assert_uint_eq(pcs[1], 0x209abc);
					ck_assert_uint_eq(pcs[2], 9);
					ck_assert_uint_eq(tb_pmclog_cc_copy(&ev, 0, pcs, 1), 1);
					ck_assert_uint_eq(pcs[0], 0x201234);
					ck_assert_uint_eq(tb_pmclog_cc_copy(&ev, 3, pcs, 4), 0);
				}
			} else if (ev.u.cc.pid == 0) {
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, 0),
						  A(ev.addr_size, 0xffffffff80abcdefULL));
			} else if (ev.u.cc.cpuflags & TB_PMCLOG_CC_MULTIPART) {
				/* slot 4 + i of the IBS data holds 0x1000*(i+1)+i */
				uint32_t f = ev.u.cc.parts[1].first;
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, f), 0x5004);
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, ev.u.cc.pc_first),
						  0xd00c);
				ck_assert_uint_eq(tb_pmclog_cc_slot(&ev, ev.u.cc.npc - 1),
						  0xf00e);
			}
			break;
		default:
			break;
		}
		seen++;
	}
	ck_assert_int_eq(st, TB_END);
	ck_assert_uint_gt(seen, 20);
	free(p);
	tb_plw_free(&w);
}
END_TEST

/* Unwritten bytes (spare, pads, rounding) are ignored: any stale content
 * decodes to the same events. */
START_TEST(stale_bytes_ignored)
{
	int arch = _i;
	tb_plw w1, w2;
	tb_pmclog_options opt;
	run r1, r2;
	size_t i;
	tb_plw_init_arch(&w1, arch);
	w1.stale = 0x00;
	tb_plw_session_all(&w1);
	tb_plw_init_arch(&w2, arch);
	w2.stale = 0xFF;
	tb_plw_session_all(&w2);
	ck_assert_uint_eq(w1.len, w2.len);
	tb_plw_arch_options(arch, &opt);
	decode_all(&opt, w1.buf, w1.len, &r1);
	decode_all(&opt, w2.buf, w2.len, &r2);
	ck_assert_int_eq(r1.end, TB_END);
	ck_assert_int_eq(r2.end, TB_END);
	ck_assert_uint_eq(r1.n, r2.n);
	for (i = 0; i < r1.n; i++) {
		/* The raw bytes differ; every decoded field is the same.  (The
		 * unknown record's fill and its position are the same.) */
		ck_assert_msg(memcmp(&r1.ev[i].ev, &r2.ev[i].ev, sizeof(r1.ev[i].ev)) == 0,
			      "%s: record %zu depends on stale bytes",
			      tb_plw_arch_name(arch), i);
	}
	run_free(&r1);
	run_free(&r2);
	tb_plw_free(&w1);
	tb_plw_free(&w2);
}
END_TEST

START_TEST(detection)
{
	static const struct {
		int arch;
		unsigned a;
		int be, legacy;
	} cases[] = {
		{ TB_PLW_AMD64, 8, 0, 0 },  { TB_PLW_I386, 4, 0, 0 },
		{ TB_PLW_ARM64, 8, 0, 0 },  { TB_PLW_ARMV7, 4, 0, 0 },
		{ TB_PLW_POWERPC64BE, 8, 1, 0 }, { TB_PLW_LEGACY_AMD64, 8, 0, 1 },
	};
	size_t k;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		tb_plw w;
		run r;
		write_arch(&w, cases[k].arch, NULL);
		decode_all(NULL, w.buf, w.len, &r); /* no options at all */
		ck_assert_int_eq(r.end, TB_END);
		ck_assert_uint_eq(r.ev[1].ev.addr_size, cases[k].a);
		run_free(&r);
		{
			/* The same with the generation given. */
			tb_pmclog_options opt;
			memset(&opt, 0, sizeof(opt));
			opt.generation = cases[k].legacy ? TB_PMCLOG_GEN_LEGACY
							 : TB_PMCLOG_GEN_MODERN;
			decode_all(&opt, w.buf, w.len, &r);
			ck_assert_int_eq(r.end, TB_END);
			ck_assert_uint_eq(r.ev[1].ev.addr_size, cases[k].a);
			ck_assert_uint_eq(r.ev[1].ev.big_endian, cases[k].be);
		}
		ck_assert_uint_eq(r.ev[1].ev.big_endian, cases[k].be);
		ck_assert_uint_eq(r.ev[1].ev.legacy, cases[k].legacy);
		run_free(&r);
		tb_plw_free(&w);
	}
}
END_TEST

/* A 32-bit legacy log read as 64-bit is caught by the CALLCHAIN check. */
START_TEST(wrong_address_width_is_reported)
{
	tb_plw w;
	run r;
	write_arch(&w, TB_PLW_LEGACY_I386, NULL);
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert(tb_is_error(r.end));
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Errors and the libpmc bugs of spec section 8.                      */

/* amd64 INITIALIZE, then whatever the test appends. */
static void start_amd64(tb_plw *w)
{
	tb_plw_init_arch(w, TB_PLW_AMD64);
	tb_plw_initialize(w, 0x9B, TB_PLW_TSC_FREQ, TB_PLW_WALL_SEC,
			  TB_PLW_WALL_NSEC, TB_PLW_CPUID);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

/* Decode and expect `nok` events, then `want` at `off`. */
static void expect_error(const tb_pmclog_options *opt, const uint8_t *b,
			 size_t len, size_t nok, tb_status want, uint64_t off)
{
	run r, r1;
	static const size_t ones[1] = { 1 };
	decode_all(opt, b, len, &r);
	ck_assert_msg(r.end == want, "end %s (%s), want %s", tb_strerror(r.end),
		      r.err.what, tb_strerror(want));
	ck_assert_uint_eq(r.n, nok);
	if (tb_is_error(want)) {
		ck_assert_uint_eq(r.err.offset, off);
		ck_assert_uint_eq(r.err.status, want);
		ck_assert_ptr_nonnull(r.err.what);
	}
	/* Byte-at-a-time feeding finds the same. */
	decode_pieces(opt, b, len, ones, 1, 1, &r1);
	assert_same(&r, &r1);
	run_free(&r);
	run_free(&r1);
}

/* amd64 INITIALIZE, then one raw record that must fail with `want` at
 * the record's start. */
static void expect_raw_error(uint8_t type, uint16_t len_field, size_t total,
			     tb_status want)
{
	tb_plw w;
	size_t at;
	start_amd64(&w);
	at = w.len;
	tb_plw_raw(&w, type, len_field, total, 0);
	expect_error(NULL, w.buf, w.len, 1, want, at);
	tb_plw_free(&w);
}

START_TEST(bug1_lengths_0_to_3)
{
	unsigned l;
	for (l = 0; l < 16; l++)
		expect_raw_error(16, (uint16_t)l, 64, TB_ERR_LENGTH);
}
END_TEST

START_TEST(bug2_lengths_beyond_any_record)
{
	/* 65528-byte CALLCHAIN (8187 PCs): past libpmc's 4128-byte buffer. */
	tb_plw w;
	tb_pmclog_options opt;
	run r;
	static const size_t k4[1] = { 4096 };
	expect_raw_error(16, 65528, 65528, TB_ERR_LIMIT);
	/* With the limit raised it is a correct decode, also across feeds. */
	start_amd64(&w);
	tb_plw_raw(&w, 16, 65528, 65528, 0x11);
	memset(&opt, 0, sizeof(opt));
	opt.max_pcs = 8187;
	decode_pieces(&opt, w.buf, w.len, k4, 1, 1, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_uint_eq(r.ev[1].ev.len, 65528);
	ck_assert_uint_eq(r.ev[1].ev.u.cc.npc, 8187);
	run_free(&r);
	tb_plw_free(&w);
	/* Unknown type of the largest length: skipped as unknown. */
	start_amd64(&w);
	tb_plw_raw(&w, 0x7f, 65532, 65532, 0x22);
	tb_plw_closelog(&w);
	decode_pieces(NULL, w.buf, w.len, k4, 1, 1, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_int_eq(r.ev[1].ev.type, TB_PMCLOG_UNKNOWN);
	ck_assert_uint_eq(r.ev[1].ev.len, 65532);
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

START_TEST(bug3_fixed_types_exact)
{
	/* Each fixed-size modern type one word shorter and longer. */
	static const struct { uint8_t type; unsigned len; } fx[] = {
		{ 1, 16 }, { 2, 16 }, { 5, 40 }, { 7, 24 }, { 8, 40 }, { 10, 32 },
		{ 11, 24 }, { 12, 24 }, { 13, 24 }, { 15, 40 }, { 17, 96 },
		{ 18, 52 }, { 19, 24 }, { 20, 44 },
	};
	size_t k;
	int d;
	for (k = 0; k < sizeof(fx) / sizeof(fx[0]); k++) {
		for (d = -1; d <= 1; d += 2) {
			unsigned len = (unsigned)((int)fx[k].len + 4 * d);
			if (len >= 16)
				expect_raw_error(fx[k].type, (uint16_t)len, len,
						 TB_ERR_LENGTH);
		}
	}
}
END_TEST

START_TEST(bug4_short_callchain)
{
	unsigned len;
	for (len = 16; len < 32; len += 4)
		expect_raw_error(16, (uint16_t)len, len, TB_ERR_LENGTH);
	/* 36 bytes on amd64: half an address. */
	expect_raw_error(16, 36, 36, TB_ERR_LENGTH);
	{
		/* Zero PCs is well formed (AMD's test pmclog_callchain_zero_pcs). */
		tb_plw w;
		run r;
		start_amd64(&w);
		tb_plw_callchain(&w, 1, 2, 3, 0, NULL, 0);
		decode_all(NULL, w.buf, w.len, &r);
		ck_assert_int_eq(r.end, TB_END);
		ck_assert_uint_eq(r.n, 2);
		ck_assert_uint_eq(r.ev[1].ev.u.cc.npc, 0);
		run_free(&r);
		tb_plw_free(&w);
	}
}
END_TEST

START_TEST(bug5_more_pcs_than_maximum)
{
	uint64_t pcs[513];
	tb_plw w;
	size_t at, i;
	run r;
	for (i = 0; i < 513; i++)
		pcs[i] = 0x400000 + i;
	start_amd64(&w);
	tb_plw_callchain(&w, 1, 2, 3, 0, pcs, 512); /* the kernel's maximum */
	at = w.len;
	tb_plw_callchain(&w, 1, 2, 3, 0, pcs, 513);
	expect_error(NULL, w.buf, w.len, 2, TB_ERR_LIMIT, at);
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_uint_eq(r.ev[1].ev.u.cc.npc, 512);
	ck_assert_uint_eq(r.ev[1].ev.len, 32 + 512 * 8);
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

START_TEST(bug6_paths)
{
	tb_plw w;
	size_t at;
	char path[1100];
	run r;
	/* No NUL anywhere in the path area. */
	start_amd64(&w);
	at = w.len;
	tb_plw_map_in(&w, 5, 0x1000, "/bin/shh");
	memset(w.buf + at + 32, 'A', w.len - at - 32);
	expect_error(NULL, w.buf, w.len, 1, TB_ERR_VALUE, at + 32);
	tb_plw_free(&w);
	/* A record with no room for a path at all (libpmc: stale name). */
	expect_raw_error(6, 24, 24, TB_ERR_LENGTH);  /* PMCATTACH */
	expect_raw_error(9, 40, 40, TB_ERR_LENGTH);  /* PROCEXEC, base+dyn */
	expect_raw_error(14, 32, 32, TB_ERR_LENGTH); /* MAP_IN */
	/* PATH_MAX: 1023 characters fit, 1024 do not. */
	memset(path, 'p', sizeof(path));
	path[0] = '/';
	path[1023] = '\0';
	start_amd64(&w);
	tb_plw_pmcattach(&w, 1, 2, path);
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.ev[1].ev.u.t.pathname.len, 1023);
	run_free(&r);
	path[1023] = 'p';
	path[1024] = '\0';
	at = w.len;
	tb_plw_pmcattach(&w, 1, 2, path);
	expect_error(NULL, w.buf, w.len, 2, TB_ERR_LENGTH, at);
	tb_plw_free(&w);
	/* An empty path is well formed. */
	start_amd64(&w);
	tb_plw_map_in(&w, 5, 0x1000, "");
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.ev[1].ev.u.mi.pathname.len, 0);
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

START_TEST(bug7_initialize)
{
	tb_plw w;
	run r;
	size_t i;
	/* A cpuid filling all 64 bytes without NUL: bounded, not over-read. */
	start_amd64(&w);
	memset(w.buf + 48, 'C', 64);
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.ev[0].ev.u.i.cpuid.len, 64);
	run_free(&r);
	/* INITIALIZE of the wrong length: not a log we can frame. */
	for (i = 100; i <= 116; i += 4) {
		if (i == 104 || i == 112)
			continue;
		put_le32(w.buf, 0xEE030000u | (uint32_t)i);
		expect_error(NULL, w.buf, w.len, 0, TB_ERR_VERSION, 0);
	}
	tb_plw_free(&w);
	/* A modern layout with a legacy version number, and vice versa. */
	start_amd64(&w);
	put_le32(w.buf + 16, 0x03010000u);
	expect_error(NULL, w.buf, w.len, 0, TB_ERR_VERSION, 16);
	tb_plw_free(&w);
	tb_plw_init_arch(&w, TB_PLW_LEGACY_AMD64);
	w.version = 0x0A000000u;
	tb_plw_initialize(&w, 0x87, 0, 0, 0, "");
	expect_error(NULL, w.buf, w.len, 0, TB_ERR_VERSION, 12);
	tb_plw_free(&w);
	/* A later INITIALIZE of the wrong size is a length error. */
	expect_raw_error(3, 108, 108, TB_ERR_LENGTH);
}
END_TEST

START_TEST(bug8_allocatedyn_overwrite)
{
	tb_plw w;
	run r;
	/* Kernel layout: rate at 32, name at 40, 8 bytes past the record
	 * (the next record's spare holds the tail). */
	start_amd64(&w);
	tb_plw_pmcallocatedyn(&w, 0x200, 7, 0x80, 0, "SOFT-CLOCK.HARD", 0);
	tb_plw_pmcallocatedyn(&w, 0x201, 8, 0x80, 4096, "PAGE_FAULT.MINOR", 0);
	tb_plw_pmcallocatedyn(&w, 0x202, 9, 0x80, 0, "PAGE_FAULT.MAJOR", 1);
	tb_plw_closelog(&w);
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.n, 5);
	ck_assert_uint_eq(r.ev[1].ev.u.ad.name_at_40, 1);
	ck_assert_uint_eq(r.ev[1].ev.u.ad.evname.len, strlen("SOFT-CLOCK.HARD"));
	ck_assert_uint_eq(r.ev[2].ev.u.ad.name_at_40, 1);
	ck_assert_uint_eq(r.ev[2].ev.u.ad.rate, 4096);
	ck_assert_uint_eq(r.ev[3].ev.u.ad.name_at_40, 0);
	ck_assert_uint_eq(r.ev[3].ev.u.ad.evname.len, strlen("PAGE_FAULT.MAJOR"));
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

START_TEST(bug9_bad_magic_and_unknown_types)
{
	tb_plw w;
	size_t at;
	run r;
	/* Bad magic on a later record: sticky, at that record. */
	start_amd64(&w);
	tb_plw_closelog(&w);
	at = w.len;
	tb_plw_dropnotify(&w);
	w.buf[at + 3] = 0xEF;
	tb_plw_dropnotify(&w);
	expect_error(NULL, w.buf, w.len, 2, TB_ERR_MAGIC, at);
	tb_plw_free(&w);
	/* Garbage first bytes. */
	{
		static const uint8_t junk[16] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		expect_error(NULL, junk, sizeof(junk), 0, TB_ERR_MAGIC, 0);
	}
	/* Every unknown type of a sound header is skipped as unknown. */
	start_amd64(&w);
	tb_plw_raw(&w, 0, 16, 16, 0);
	tb_plw_raw(&w, 4, 20, 20, 0);  /* retired PCSAMPLE */
	tb_plw_raw(&w, 22, 24, 24, 0); /* the first type past the table */
	tb_plw_raw(&w, 0xFF, 32, 32, 0);
	tb_plw_closelog(&w);
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.n, 6);
	ck_assert_int_eq(r.ev[1].ev.type, TB_PMCLOG_UNKNOWN);
	ck_assert_int_eq(r.ev[2].ev.type, TB_PMCLOG_UNKNOWN);
	ck_assert_int_eq(r.ev[3].ev.type, TB_PMCLOG_UNKNOWN);
	ck_assert_uint_eq(r.ev[4].ev.raw_type, 0xFF);
	ck_assert_int_eq(r.ev[5].ev.type, TB_PMCLOG_CLOSELOG);
	run_free(&r);
	/* Length not a multiple of 4. */
	at = w.len;
	tb_plw_raw(&w, 0x40, 18, 20, 0);
	expect_error(NULL, w.buf, w.len, 6, TB_ERR_LENGTH, at);
	tb_plw_free(&w);
}
END_TEST

START_TEST(bug10_closelog)
{
	tb_plw w;
	tb_pmclog_options opt;
	run r;
	write_arch(&w, TB_PLW_AMD64, NULL);
	/* Default: records after CLOSELOG are decoded. */
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.ev[r.n - 2].ev.type, TB_PMCLOG_CLOSELOG);
	ck_assert_int_eq(r.ev[r.n - 1].ev.type, TB_PMCLOG_CALLCHAIN);
	run_free(&r);
	/* libpmc's way: CLOSELOG ends the log. */
	memset(&opt, 0, sizeof(opt));
	opt.flags = TB_PMCLOG_STOP_AT_CLOSELOG;
	decode_pieces(&opt, w.buf, w.len, NULL, 0, 0, &r); /* never closed */
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_int_eq(r.ev[r.n - 1].ev.type, TB_PMCLOG_CLOSELOG);
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

START_TEST(multipart_bounds)
{
	static const uint64_t slots[6] = { 1, 2, 3, 4, 5, 6 };
	tb_plw w;
	size_t at;
	run r;
	/* A part claiming 255 slots of a 6-slot record (pmcstat reads past). */
	{
		static const uint8_t hdr[8] = { 2, 4, 3, 255, 0, 0, 0, 0 };
		start_amd64(&w);
		at = w.len;
		tb_plw_callchain_mp(&w, 1, 2, 3, TB_PMCLOG_CC_MULTIPART, hdr, slots, 6);
		expect_error(NULL, w.buf, w.len, 1, TB_ERR_RANGE, at + 32 + 2);
		tb_plw_free(&w);
	}
	/* All four parts at 255. */
	{
		static const uint8_t hdr[8] = { 2, 255, 3, 255, 1, 255, 2, 255 };
		start_amd64(&w);
		at = w.len;
		tb_plw_callchain_mp(&w, 1, 2, 3, TB_PMCLOG_CC_MULTIPART, hdr, slots, 6);
		expect_error(NULL, w.buf, w.len, 1, TB_ERR_RANGE, at + 32);
		tb_plw_free(&w);
	}
	/* Exactly filling the record is fine; PCs follow the parts. */
	{
		static const uint8_t hdr[8] = { 2, 4, 1, 1, 0, 0, 0, 0 };
		start_amd64(&w);
		tb_plw_callchain_mp(&w, 1, 2, 3, TB_PMCLOG_CC_MULTIPART, hdr, slots, 5);
		decode_all(NULL, w.buf, w.len, &r);
		ck_assert_int_eq(r.end, TB_END);
		ck_assert_uint_eq(r.ev[1].ev.u.cc.npc, 6);
		ck_assert_uint_eq(r.ev[1].ev.u.cc.pc_first, 5);
		ck_assert_uint_eq(r.ev[1].ev.u.cc.nparts, 2);
		run_free(&r);
		tb_plw_free(&w);
	}
	/* Multipart flag with no room for the part header. */
	{
		start_amd64(&w);
		at = w.len;
		tb_plw_callchain(&w, 1, 2, 3, TB_PMCLOG_CC_MULTIPART, NULL, 0);
		expect_error(NULL, w.buf, w.len, 1, TB_ERR_LENGTH, at);
		tb_plw_free(&w);
	}
}
END_TEST

/* pmcstat assert()s on these; to a decoder they are plain records. */
START_TEST(pmcstat_asserts_are_values)
{
	static const uint64_t pc[1] = { 0x400000 };
	tb_plw w;
	run r;
	start_amd64(&w);
	tb_plw_map_out(&w, 9, 0x5000, 0x1000);               /* start > end */
	tb_plw_callchain(&w, 9, 10, 0xABCDEF01u, 0, pc, 1);  /* PMC never allocated */
	decode_all(NULL, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_uint_eq(r.ev[1].ev.u.mo.start, 0x5000);
	ck_assert_uint_eq(r.ev[1].ev.u.mo.end, 0x1000);
	ck_assert_uint_eq(r.ev[2].ev.u.cc.pmcid, 0xABCDEF01u);
	run_free(&r);
	tb_plw_free(&w);
}
END_TEST

START_TEST(fragments_need_a_generation)
{
	tb_plw w;
	tb_pmclog_options opt;
	run r;
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	tb_plw_callchain(&w, 1, 2, 3, 0, NULL, 0);
	tb_plw_map_in(&w, 1, 0x1000, "/a");
	tb_plw_procexec(&w, 1, 2, 0x100, 0x200, "/b");
	expect_error(NULL, w.buf, w.len, 0, TB_ERR_VERSION, 0);
	memset(&opt, 0, sizeof(opt));
	opt.generation = TB_PMCLOG_GEN_MODERN;
	decode_all(&opt, w.buf, w.len, &r);
	ck_assert_int_eq(r.end, TB_END);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_uint_eq(r.ev[2].ev.u.x.dynaddr, 0x200);
	run_free(&r);
	/* The same fragment read with a 0x09 version: single-address exec
	 * (the path then starts 8 bytes earlier and holds the dyn bytes). */
	opt.version = 0x09030000u;
	opt.byte_order = TB_PMCLOG_ORDER_LITTLE;
	decode_all(&opt, w.buf, w.len, &r);
	ck_assert_uint_eq(r.ev[2].ev.u.x.has_dyn, 0);
	ck_assert_uint_eq(r.ev[2].ev.u.x.entryaddr, 0x100);
	run_free(&r);
	/* Bad options. */
	opt.addr_size = 6;
	expect_error(&opt, w.buf, w.len, 0, TB_ERR_ARG, 0);
	opt.addr_size = 0;
	opt.generation = 9;
	expect_error(&opt, w.buf, w.len, 0, TB_ERR_ARG, 0);
	opt.generation = TB_PMCLOG_GEN_MODERN;
	opt.byte_order = 3;
	expect_error(&opt, w.buf, w.len, 0, TB_ERR_ARG, 0);
	tb_plw_free(&w);
}
END_TEST

START_TEST(api_contract)
{
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_error err, err2;
	uint8_t one = 0;
	write_arch(&w, TB_PLW_AMD64, NULL);
	tb_pmclog_init(p, NULL);
	/* Nothing fed: need more; empty feeds change nothing. */
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_NEED_MORE);
	ck_assert_int_eq(tb_pmclog_feed(p, NULL, 0), TB_OK);
	ck_assert_int_eq(tb_pmclog_feed(p, NULL, 1), TB_ERR_ARG);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_NEED_MORE);
	ck_assert_int_eq(tb_pmclog_feed(p, w.buf, w.len), TB_OK);
	/* A second feed while bytes are pending is refused. */
	ck_assert_int_eq(tb_pmclog_feed(p, &one, 1), TB_ERR_ARG);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_OK);
	ck_assert_int_eq(ev.type, TB_PMCLOG_INITIALIZE);
	/* Zero copy: the event points into the fed buffer. */
	ck_assert_ptr_eq(ev.data, w.buf);
	while (tb_pmclog_next(p, &ev, &err) == TB_OK)
		;
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_NEED_MORE);
	tb_pmclog_close(p);
	ck_assert_int_eq(tb_pmclog_feed(p, &one, 1), TB_ERR_ARG);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_END);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_END);
	/* Sticky errors repeat with the same offset; err may be NULL. */
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w.buf, 7), TB_OK);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, NULL), TB_ERR_TRUNCATED);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err2), TB_ERR_TRUNCATED);
	ck_assert_uint_eq(err.offset, err2.offset);
	ck_assert_str_eq(err.what, err2.what);
	ck_assert_str_eq(tb_pmclog_type_name(TB_PMCLOG_MAP_IN), "map_in");
	ck_assert_str_eq(tb_pmclog_type_name(TB_PMCLOG_TYPE_COUNT_), "unknown");
	ck_assert_uint_eq(tb_pmclog_cc_slot(NULL, 0), 0);
	free(p);
	tb_plw_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Every prefix, every split.                                         */

START_TEST(every_prefix)
{
	int arch = _i;
	tb_plw w;
	tb_pmclog_options opt;
	run full;
	size_t k;
	write_arch(&w, arch, NULL);
	tb_plw_arch_options(arch, &opt);
	decode_all(&opt, w.buf, w.len, &full);
	ck_assert_int_eq(full.end, TB_END);
	for (k = 0; k <= w.len; k++) {
		run r, open_r;
		size_t m = 0, i;
		uint64_t boundary = 0;
		while (m < full.n &&
		       full.ev[m].ev.offset + full.ev[m].ev.len <= k) {
			boundary = full.ev[m].ev.offset + full.ev[m].ev.len;
			m++;
		}
		decode_all(&opt, w.buf, k, &r);
		ck_assert_uint_eq(r.n, m);
		for (i = 0; i < m; i++)
			ck_assert(memcmp(&r.ev[i].ev, &full.ev[i].ev, sizeof(r.ev[i].ev)) == 0);
		if (boundary == k) {
			ck_assert_int_eq(r.end, TB_END);
		} else {
			ck_assert_msg(r.end == TB_ERR_TRUNCATED, "prefix %zu: %s", k,
				      tb_strerror(r.end));
			ck_assert_uint_eq(r.err.offset, boundary);
		}
		/* Not closed: need more, never an error or a wrong event. */
		decode_pieces(&opt, w.buf, k, NULL, 0, 0, &open_r);
		ck_assert_int_eq(open_r.end, TB_NEED_MORE);
		ck_assert_uint_eq(open_r.n, m);
		run_free(&r);
		run_free(&open_r);
	}
	run_free(&full);
	tb_plw_free(&w);
}
END_TEST

START_TEST(every_split)
{
	int arch = _i;
	tb_plw w;
	tb_pmclog_options opt;
	run full, r;
	size_t s;
	static const size_t ones[1] = { 1 };
	write_arch(&w, arch, NULL);
	tb_plw_arch_options(arch, &opt);
	decode_all(&opt, w.buf, w.len, &full);
	for (s = 1; s < w.len; s++) {
		size_t two[2];
		two[0] = s;
		two[1] = w.len - s;
		decode_pieces(&opt, w.buf, w.len, two, 2, 1, &r);
		assert_same(&full, &r);
		run_free(&r);
	}
	decode_pieces(&opt, w.buf, w.len, ones, 1, 1, &r);
	assert_same(&full, &r);
	run_free(&r);
	run_free(&full);
	tb_plw_free(&w);
}
END_TEST

START_TEST(random_splits_of_a_sampling_session)
{
	tb_plw w;
	run full, r;
	uint32_t seed = 12345;
	int round;
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	tb_plw_session_sampling(&w, 3000, 64, 7);
	decode_all(NULL, w.buf, w.len, &full);
	ck_assert_int_eq(full.end, TB_END);
	ck_assert_uint_gt(full.n, 3000);
	for (round = 0; round < 20; round++) {
		size_t sizes[16];
		size_t k;
		for (k = 0; k < 16; k++) {
			seed = seed * 1103515245u + 12345u;
			sizes[k] = 1 + (seed >> 8) % (round < 10 ? 64 : 9000);
		}
		decode_pieces(NULL, w.buf, w.len, sizes, 16, 1, &r);
		assert_same(&full, &r);
		run_free(&r);
	}
	run_free(&full);
	tb_plw_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TSC to nanoseconds.                                                */

START_TEST(tsc_delta_exact)
{
	uint64_t ns;
	uint32_t seed = 99;
	int i;
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(2400000000ULL, 2400000000ULL, &ns), TB_OK);
	ck_assert_uint_eq(ns, 1000000000ULL);
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(1, 2400000000ULL, &ns), TB_OK);
	ck_assert_uint_eq(ns, 0);
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(3, 2400000000ULL, &ns), TB_OK);
	ck_assert_uint_eq(ns, 1); /* 1.25 ns */
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(5, 0, &ns), TB_ERR_VALUE);
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(UINT64_MAX, 1, &ns), TB_ERR_RANGE);
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(UINT64_MAX - 1, UINT64_MAX, &ns), TB_OK);
	ck_assert_uint_eq(ns, 999999999ULL);
	/* Against 128-bit arithmetic, with frequencies beyond 2^64/1e9. */
	for (i = 0; i < 20000; i++) {
		uint64_t d, f;
		unsigned __int128 want;
		seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
		d = (uint64_t)seed << 32 | (seed * 2654435761u);
		seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
		f = i % 3 == 0 ? (uint64_t)seed << (seed % 33) : (uint64_t)seed + 1;
		if (f == 0)
			f = 1;
		want = (unsigned __int128)d * 1000000000u / f;
		if (want > UINT64_MAX) {
			ck_assert_int_eq(tb_pmclog_tsc_delta_ns(d, f, &ns), TB_ERR_RANGE);
		} else {
			ck_assert_int_eq(tb_pmclog_tsc_delta_ns(d, f, &ns), TB_OK);
			ck_assert_uint_eq(ns, (uint64_t)want);
		}
	}
}
END_TEST

START_TEST(tsc_to_wall_time)
{
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_error err;
	int64_t ns, base = TB_PLW_WALL_SEC * 1000000000LL + TB_PLW_WALL_NSEC;
	write_arch(&w, TB_PLW_AMD64, NULL);
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w.buf, w.len), TB_OK);
	ck_assert_int_eq(tb_pmclog_tsc_to_ns(p, 5, &ns), TB_NOT_FOUND);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_pmclog_tsc_to_ns(p, ev.tsc, &ns), TB_OK);
	ck_assert_int_eq(ns, base);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_OK);
	/* 2400 ticks at 2.4 GHz: one microsecond later. */
	ck_assert_int_eq(tb_pmclog_tsc_to_ns(p, ev.tsc, &ns), TB_OK);
	ck_assert_int_eq(ns, base + 1000);
	ck_assert_int_eq(tb_pmclog_tsc_to_ns(p, ev.tsc - 2 * 2400, &ns), TB_OK);
	ck_assert_int_eq(ns, base - 1000);
	ck_assert_int_eq(tb_pmclog_tsc_to_ns(p, UINT64_MAX, &ns), TB_ERR_RANGE);
	tb_plw_free(&w);
	/* arm64 writes no TSC frequency. */
	write_arch(&w, TB_PLW_ARM64, NULL);
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w.buf, w.len), TB_OK);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_pmclog_tsc_to_ns(p, ev.tsc, &ns), TB_ERR_VALUE);
	tb_plw_free(&w);
	free(p);
}
END_TEST

/* An INITIALIZE record's hostile clock values: wall times whose
 * nanoseconds overflow, TSC distances too far for nanoseconds or for the
 * signed result, each TB_ERR_RANGE rather than a wrapped time. */
static tb_status wall_ns(uint64_t freq, int64_t sec, uint64_t init_tsc,
			 uint64_t at, int64_t *ns)
{
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_error err;
	tb_status st;
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	w.tsc = init_tsc;
	tb_plw_initialize(&w, w.cputype, freq, sec, 0, TB_PLW_CPUID);
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w.buf, w.len), TB_OK);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &err), TB_OK);
	ck_assert_uint_eq(ev.tsc, init_tsc);
	st = tb_pmclog_tsc_to_ns(p, at, ns);
	tb_plw_free(&w);
	free(p);
	return st;
}

START_TEST(tsc_to_wall_time_limits)
{
	const uint64_t big = 1ULL << 62, ghz = 1000000000ULL;
	uint64_t d, ns_u;
	int64_t ns;
	/* the largest wall seconds that still leave room, and one more */
	ck_assert_int_eq(wall_ns(ghz, INT64_MAX / 1000000000 - 1, big, big, &ns), TB_OK);
	ck_assert_int_eq(ns, (INT64_MAX / 1000000000 - 1) * 1000000000);
	ck_assert_int_eq(wall_ns(ghz, INT64_MAX / 1000000000, big, big, &ns), TB_ERR_RANGE);
	ck_assert_int_eq(wall_ns(ghz, INT64_MIN / 1000000000, big, big, &ns), TB_ERR_RANGE);
	/* 1 Hz: 2^62 ticks are more nanoseconds than 64 bits hold */
	ck_assert_int_eq(wall_ns(1, 0, big, 2 * big, &ns), TB_ERR_RANGE);
	/* 1 GHz: 2^63 + 2^62 ns fit 64 bits unsigned, not signed */
	ck_assert_int_eq(wall_ns(ghz, 0, big, 4 * big - 1, &ns), TB_ERR_RANGE);
	/* before the INITIALIZE record, past INT64_MIN */
	ck_assert_int_eq(wall_ns(ghz, -9000000000LL, big, big - 300000000000000000ULL, &ns),
			 TB_ERR_RANGE);
	ck_assert_int_eq(wall_ns(ghz, -9000000000LL, big, big - 200000000000000000ULL, &ns),
			 TB_OK);
	ck_assert_int_eq(ns, -9000000000LL * 1000000000 - 200000000000000000LL);
	/* tb_pmclog_tsc_delta_ns: whole seconds that just fit, and a fraction
	 * that then carries the sum past 2^64 (the narrow window between the
	 * two checks, which random values do not find) */
	d = 999999999ULL * 18446744073ULL + 800000000ULL;
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(d, 999999999ULL, &ns_u), TB_ERR_RANGE);
	d = 999999999ULL * 18446744073ULL + 700000000ULL;
	ck_assert_int_eq(tb_pmclog_tsc_delta_ns(d, 999999999ULL, &ns_u), TB_OK);
	ck_assert_uint_eq(ns_u, (uint64_t)((unsigned __int128)d * 1000000000u / 999999999ULL));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Golden files: the committed logs are what the writer produces, and  */
/* the CLI prints exactly the committed text and JSON for them.        */
/* TB_PMCLOG_REGEN=1 rewrites them (then review the diff).             */

#define GOLDEN_DIR "tests/data/pmclog"

static int regen(void)
{
	const char *e = getenv("TB_PMCLOG_REGEN");
	return e && *e == '1';
}

static void check_or_write(const char *rel_path, const uint8_t *data, size_t len)
{
	char path[4096];
	size_t have_len = 0;
	uint8_t *have;
	snprintf(path, sizeof(path), "%s", tb_test_path(rel_path));
	if (regen()) {
		FILE *f = fopen(path, "wb");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(data, 1, len, f), len);
		fclose(f);
		return;
	}
	have = tb_test_read_file(path, &have_len);
	ck_assert_msg(have != NULL, "missing %s (run with TB_PMCLOG_REGEN=1)", rel_path);
	ck_assert_msg(have_len == len && memcmp(have, data, len) == 0,
		      "%s differs from what is expected", rel_path);
	free(have);
}

/* Run a shell command ($CLI is the tool); return its stdout (malloc'd),
 * exit status and the start of its stderr. */
static uint8_t *run_cli(const char *args, size_t *len, int *status, char *errbuf,
			size_t errlen)
{
	tb_test_run r;
	tb_test_sh(args, &r);
	ck_assert_ptr_nonnull(r.out);
	ck_assert_ptr_nonnull(r.err);
	*status = r.status;
	*len = r.out_len;
	snprintf(errbuf, errlen, "%s", r.err);
	free(r.err);
	return (uint8_t *)r.out;
}

/* The log `name`.pmclog must be what the writer made, and the CLI run
 * with `flags` on it must print exactly `name`.`ext`. */
static void golden_cli(const tb_plw *w, const char *name, const char *flags,
		       const char *ext)
{
	char rel[256], args[1024], errbuf[1024];
	int status;
	size_t len;
	uint8_t *out;
	snprintf(rel, sizeof(rel), GOLDEN_DIR "/%s.pmclog", name);
	check_or_write(rel, w->buf, w->len);
	snprintf(args, sizeof(args), "\"$CLI\" pmclog %s%s", flags, rel);
	out = run_cli(args, &len, &status, errbuf, sizeof(errbuf));
	ck_assert_msg(status == 0, "%s: exit %d: %s", args, status, errbuf);
	ck_assert_str_eq(errbuf, "");
	snprintf(rel, sizeof(rel), GOLDEN_DIR "/%s.%s", name, ext);
	check_or_write(rel, out, len);
	free(out);
}

START_TEST(golden_logs_and_cli_output)
{
	int arch = _i;
	tb_plw w;
	/* A legacy log does not say its address width. */
	int a4 = arch == TB_PLW_LEGACY_I386 || arch == TB_PLW_LEGACY_BE32;
	write_arch(&w, arch, NULL);
	if (regen())
		mkdir(tb_test_path(GOLDEN_DIR), 0777);
	golden_cli(&w, tb_plw_arch_name(arch), a4 ? "--addr-size 4 " : "", "txt");
	golden_cli(&w, tb_plw_arch_name(arch),
		   a4 ? "--json --addr-size 4 " : "--json ", "json");
	tb_plw_free(&w);
}
END_TEST

/* A typical system-wide sampling session (spec section 10), in JSON. */
START_TEST(golden_sampling_session)
{
	tb_plw w;
	tb_plw_init_arch(&w, TB_PLW_AMD64);
	tb_plw_session_sampling(&w, 520, 4, 42);
	golden_cli(&w, "sampling-amd64", "--json ", "json");
	tb_plw_free(&w);
}
END_TEST

/* Process mode on i386 (PMC_VERSION 0x09: single-address exec), as text. */
START_TEST(golden_process_session)
{
	tb_plw w;
	tb_plw_init_arch(&w, TB_PLW_I386);
	tb_plw_session_process(&w, 12);
	golden_cli(&w, "process-i386", "", "txt");
	tb_plw_free(&w);
}
END_TEST

START_TEST(cli_streams_pipes_and_reports_bad_input)
{
	char errbuf[1024];
	int status;
	size_t len, want_len;
	uint8_t *out, *want;
	/* A pipe gives the same output as the file. */
	out = run_cli("cat " GOLDEN_DIR "/amd64.pmclog | \"$CLI\" pmclog -", &len,
		      &status, errbuf, sizeof(errbuf));
	ck_assert_int_eq(status, 0);
	want = tb_test_read_file(tb_test_path(GOLDEN_DIR "/amd64.txt"), &want_len);
	ck_assert_ptr_nonnull(want);
	ck_assert(len == want_len && memcmp(out, want, len) == 0);
	free(out);
	/* Cut inside the 3rd record (PMCALLOCATEDYN at 152..248): two records
	 * printed, then file, offset and reason on stderr, exit 1. */
	out = run_cli("head -c 200 " GOLDEN_DIR "/amd64.pmclog | \"$CLI\" pmclog -",
		      &len, &status, errbuf, sizeof(errbuf));
	ck_assert_int_eq(status, 1);
	ck_assert(len > 0 && memcmp(out, want, len) == 0);
	ck_assert_uint_eq(memchr(want, '\n', want_len) != NULL, 1);
	ck_assert_msg(strstr(errbuf, "(stdin): offset 152: truncated input") != NULL,
		      "stderr: %s", errbuf);
	free(out);
	free(want);
	/* Usage and I/O errors: exit 2. */
	free(run_cli("\"$CLI\" pmclog", &len, &status, errbuf, sizeof(errbuf)));
	ck_assert_int_eq(status, 2);
	free(run_cli("\"$CLI\" pmclog --addr-size 5 x", &len, &status, errbuf,
		     sizeof(errbuf)));
	ck_assert_int_eq(status, 2);
	free(run_cli("\"$CLI\" pmclog /nonexistent/x.pmclog", &len, &status, errbuf,
		     sizeof(errbuf)));
	ck_assert_int_eq(status, 2);
	ck_assert(strstr(errbuf, "/nonexistent/x.pmclog") != NULL);
}
END_TEST

/* Output goes out in large blocks: a write that fails (a full disk) is
 * still reported, text and JSON, with exit 2, and a long log printed
 * through many blocks is the same whole as the short runs show. */
START_TEST(cli_write_errors_exit_2)
{
	char errbuf[1024];
	int status;
	size_t len;
	free(run_cli("\"$CLI\" pmclog " GOLDEN_DIR "/amd64.pmclog > /dev/full", &len,
		     &status, errbuf, sizeof(errbuf)));
	ck_assert_int_eq(status, 2);
	ck_assert_msg(strstr(errbuf, "write error") != NULL, "stderr: %s", errbuf);
	free(run_cli("\"$CLI\" pmclog --json " GOLDEN_DIR "/sampling-amd64.pmclog > /dev/full",
		     &len, &status, errbuf, sizeof(errbuf)));
	ck_assert_int_eq(status, 2);
	ck_assert_msg(strstr(errbuf, "write error") != NULL, "stderr: %s", errbuf);
}
END_TEST

/* Every path of the CLI's number printing (below 10^8, 9..16 digits,
 * 17..20 digits, the amd64 kernel range from 1844 * 10^16, pairs from
 * 1844674407 * 10^10) against
 * printf, in JSON ("%llu") and text ("0x%llx"), on a little-endian and a
 * big-endian 8-byte log and a 4-byte one (each PC cut to 32 bits). */
START_TEST(cli_numbers_are_printfs)
{
	static const uint64_t pcs[] = {
		0, 9, 10, 99999999, 100000000, 123456789012ull, 9999999999999999ull,
		10000000000000000ull, 99999999999999999ull, 1000000000000000000ull,
		9999999999999999999ull, 10000000000000000000ull, 18439999999999999999ull,
		18440000000000000000ull, 18440000000000000001ull, 0xffffffff80000000ull,
		0xffffffff80abcdefull, UINT64_MAX - 1, UINT64_MAX, 42, 0xffffffffull,
		0x100000000ull,
		/* JSON's pairs from "1844674407" (slots 23-24 and 25-26 are
		 * pairs; 22 and 27 are not in one) */
		18446744069999999999ull, 18446744070000000000ull,
		18446744070099999999ull, 18446744070100000000ull, 18446744073709551614ull,
		18446744070000000001ull};
	static const int arches[] = {TB_PLW_AMD64, TB_PLW_POWERPC64BE, TB_PLW_I386};
	const uint32_t npc = (uint32_t)(sizeof(pcs) / sizeof(pcs[0]));
	int arch = arches[_i];
	char path[256], args[512], errbuf[1024], want_json[1024], want_txt[1024];
	size_t len, at = 0, tat = 0, i;
	int status;
	uint8_t *out;
	const char *pc;
	tb_plw w;
	tb_plw_init_arch(&w, arch);
	tb_plw_initialize(&w, w.cputype, 2400000000u, 1700000000, 1, "cpu");
	tb_plw_callchain(&w, 7, 8, 0x100, 0, pcs, npc);
	for (i = 0; i < npc; i++) {
		unsigned long long v = (unsigned long long)A(w.a, pcs[i]);
		at += (size_t)snprintf(want_json + at, sizeof(want_json) - at, "%s%llu",
				       i ? "," : "", v);
		tat += (size_t)snprintf(want_txt + tat, sizeof(want_txt) - tat,
					"\n...       0x%llx", v);
	}
	snprintf(path, sizeof(path), "/tmp/tb-numbers-%ld.pmclog", (long)getpid());
	tb_test_write_file(path, w.buf, w.len);
	snprintf(args, sizeof(args), "\"$CLI\" pmclog --json %s", path);
	out = run_cli(args, &len, &status, errbuf, sizeof(errbuf));
	ck_assert_msg(status == 0, "exit %d: %s", status, errbuf);
	pc = strstr((const char *)out, "\"pc\":[");
	ck_assert_ptr_nonnull(pc);
	pc += 6;
	ck_assert_msg(strncmp(pc, want_json, at) == 0 && pc[at] == ']',
		      "%s: got %.*s, want %s", tb_plw_arch_name(arch), (int)at + 1, pc,
		      want_json);
	free(out);
	snprintf(args, sizeof(args), "\"$CLI\" pmclog %s", path);
	out = run_cli(args, &len, &status, errbuf, sizeof(errbuf));
	ck_assert_msg(status == 0, "exit %d: %s", status, errbuf);
	ck_assert_msg(strstr((const char *)out, want_txt) != NULL, "%s: got %s, want %s",
		      tb_plw_arch_name(arch), (const char *)out, want_txt);
	free(out);
	unlink(path);
	tb_plw_free(&w);
}
END_TEST

/* 300 copies of the golden sampling log in one stream (each copy starts
 * with its INITIALIZE, which the decoder accepts anew): about 8 MiB of
 * input, 26 MiB of JSON, so the output crosses many blocks of the CLI's
 * sink and many 256 KiB reads; every line must be the golden line with
 * its offset moved by the copy's start. */
START_TEST(cli_output_across_blocks)
{
	char errbuf[1024], args[1024];
	int status;
	size_t len, want_len, one_len, lines = 0;
	uint8_t *out, *want, *one;
	const char *p, *end, *w, *wend;
	uint64_t copy = 0;
	one = tb_test_read_file(tb_test_path(GOLDEN_DIR "/sampling-amd64.pmclog"), &one_len);
	want = tb_test_read_file(tb_test_path(GOLDEN_DIR "/sampling-amd64.json"), &want_len);
	ck_assert_ptr_nonnull(one);
	ck_assert_ptr_nonnull(want);
	snprintf(args, sizeof(args),
		 "for i in $(seq 300); do cat %s; done | \"$CLI\" pmclog --json -",
		 tb_test_path(GOLDEN_DIR "/sampling-amd64.pmclog"));
	out = run_cli(args, &len, &status, errbuf, sizeof(errbuf));
	ck_assert_msg(status == 0, "exit %d: %s", status, errbuf);
	p = (const char *)out;
	end = p + len;
	for (copy = 0; copy < 300; copy++) {
		w = (const char *)want;
		wend = w + want_len;
		while (w < wend) {
			const char *wn = memchr(w, '\n', (size_t)(wend - w));
			const char *pn = memchr(p, '\n', (size_t)(end - p));
			unsigned long long off;
			char head[64];
			int hl, wl;
			ck_assert_ptr_nonnull(wn);
			ck_assert_ptr_nonnull(pn);
			/* {"offset":N, then the rest of the golden line */
			ck_assert_int_eq(sscanf(w, "{\"offset\":%llu,%n", &off, &wl), 1);
			hl = snprintf(head, sizeof(head), "{\"offset\":%llu,",
				      off + copy * (unsigned long long)one_len);
			ck_assert_msg(pn - p == hl + (wn - w) - wl &&
				      memcmp(p, head, (size_t)hl) == 0 &&
				      memcmp(p + hl, w + wl, (size_t)(wn - w - wl)) == 0,
				      "copy %llu line %zu differs", (unsigned long long)copy, lines);
			p = pn + 1;
			w = wn + 1;
			lines++;
		}
	}
	ck_assert_ptr_eq(p, end);
	ck_assert_uint_gt(lines, 300 * 500); /* the golden log has 520+ records */
	free(out);
	free(want);
	free(one);
}
END_TEST

/* pmclog with FLAGS and --jobs 1, then --jobs 2 and 3, on `path`: the same
 * stdout, stderr and exit status, byte for byte.  Returns --jobs 1's. */
static void jobs_same(const char *flags, const char *path, tb_test_run *one)
{
	char args[1024];
	int j;
	snprintf(args, sizeof(args), "\"$CLI\" pmclog --jobs 1 %s%s", flags, path);
	tb_test_sh(args, one);
	for (j = 2; j <= 3; j++) {
		tb_test_run r;
		snprintf(args, sizeof(args), "\"$CLI\" pmclog --jobs %d %s%s", j, flags, path);
		tb_test_sh(args, &r);
		ck_assert_msg(r.status == one->status && r.out_len == one->out_len &&
			      memcmp(r.out, one->out, r.out_len) == 0 &&
			      strcmp(r.err, one->err) == 0,
			      "%s: status %d, %zu bytes, err '%.200s' (--jobs 1: %d, %zu, '%.200s')",
			      args, r.status, r.out_len, r.err, one->status, one->out_len, one->err);
		tb_test_run_free(&r);
	}
}

/* --jobs: every record kind, then a sampling session of many batches
 * (about 2 MiB of 8-byte PCs), text and JSON, whole and cut inside a
 * callchain near the end: the one-thread output, byte for byte, with the
 * same error at the same offset; and a write error still exits 2. */
START_TEST(cli_jobs_output_is_the_one_thread_output)
{
	int arch = _i;
	int a4 = arch == TB_PLW_LEGACY_I386 || arch == TB_PLW_LEGACY_BE32;
	const char *fl[2] = { a4 ? "--addr-size 4 " : "", a4 ? "--json --addr-size 4 " : "--json " };
	char path[256], cut[256], args[1024];
	size_t at, k;
	tb_test_run one;
	tb_plw w;
	write_arch(&w, arch, NULL);
	tb_plw_session_sampling(&w, 16000, 32, 5);
	/* (in /tmp: a build of only the sanitizer/coverage tree has no build/tests) */
	snprintf(path, sizeof(path), "/tmp/tb-jobs-%ld.pmclog", (long)getpid());
	snprintf(cut, sizeof(cut), "/tmp/tb-jobs-cut-%ld.pmclog", (long)getpid());
	tb_test_write_file(path, w.buf, w.len);
	at = w.len - w.len / 16; /* inside a record: the cut is said */
	tb_test_write_file(cut, w.buf, at);
	for (k = 0; k < 2; k++) {
		jobs_same(fl[k], path, &one);
		ck_assert_msg(one.status == 0 && one.err_len == 0, "%s: %d %s",
			      tb_plw_arch_name(arch), one.status, one.err);
		ck_assert_uint_gt(one.out_len, 1u << 20); /* many batches */
		tb_test_run_free(&one);
		jobs_same(fl[k], cut, &one);
		ck_assert_int_eq(one.status, 1);
		ck_assert_msg(strstr(one.err, "truncated input") != NULL, "%s", one.err);
		tb_test_run_free(&one);
	}
	snprintf(args, sizeof(args), "\"$CLI\" pmclog --jobs 2 %s%s > /dev/full", fl[1], path);
	tb_test_sh(args, &one);
	ck_assert_int_eq(one.status, 2);
	ck_assert_msg(strstr(one.err, "write error") != NULL, "%s", one.err);
	tb_test_run_free(&one);
	unlink(path);
	unlink(cut);
	tb_plw_free(&w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The library's rendering (tb_pmclog_text, tb_pmclog_json).           */

/* Every record of `data` rendered by the library, one after another. */
static char *render_all(const tb_pmclog_options *opt, const uint8_t *data, size_t len,
			int json, size_t *out_len)
{
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	size_t cap = 1u << 20;
	char *buf = malloc(cap);
	tb_text t;
	ck_assert_ptr_nonnull(buf);
	tb_text_init(&t, buf, cap);
	ck_assert_int_eq(tb_pmclog_open_buffer(p, opt, data, len), TB_OK);
	while (tb_pmclog_next(p, &ev, NULL) == TB_OK) {
		if (json)
			tb_pmclog_json(&t, &ev);
		else
			tb_pmclog_text(&t, &ev);
	}
	ck_assert(!tb_text_truncated(&t));
	*out_len = t.len;
	free(p);
	return buf;
}

/* The library prints the committed golden text and JSON of every log. */
START_TEST(library_renders_the_goldens)
{
	static const char *const logs[] = { "amd64", "i386", "arm64", "armv7", "powerpc64be",
					    "legacy-amd64", "legacy-i386", "legacy-be32",
					    "sampling-amd64", "process-i386", "inheritmiss-amd64" };
	const char *name = logs[_i];
	char path[256];
	const char *ext[2] = { "txt", "json" };
	tb_pmclog_options opt;
	size_t log_len, k;
	uint8_t *log;
	memset(&opt, 0, sizeof(opt));
	if (strstr(name, "legacy-i386") || strstr(name, "legacy-be32"))
		opt.addr_size = 4;
	snprintf(path, sizeof(path), GOLDEN_DIR "/%s.pmclog", name);
	log = tb_test_read_file(tb_test_path(path), &log_len);
	ck_assert_ptr_nonnull(log);
	for (k = 0; k < 2; k++) {
		size_t want_len, got_len;
		uint8_t *want;
		char *got;
		snprintf(path, sizeof(path), GOLDEN_DIR "/%s.%s", name, ext[k]);
		want = tb_test_read_file(tb_test_path(path), &want_len);
		if (!want)
			continue; /* sampling: JSON only; process: text only */
		got = render_all(&opt, log, log_len, (int)k, &got_len);
		ck_assert_msg(got_len == want_len && memcmp(got, want, want_len) == 0,
			      "%s: the library's rendering differs", path);
		free(want);
		free(got);
	}
	free(log);
}
END_TEST

/* The n-th record (1-based) of w's log, every one before it decoded. */
static void decode_nth(tb_pmclog *p, const tb_plw *w, int n, tb_pmclog_event *ev)
{
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w->buf, w->len), TB_OK);
	while (n-- > 0)
		ck_assert_int_eq(tb_pmclog_next(p, ev, NULL), TB_OK);
}

/* One modern MAP_IN whose path holds every kind of byte. */
static void render_map_in(const char *path, int json, char *out, size_t cap)
{
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_text t;
	start_amd64(&w);
	tb_plw_map_in(&w, 7, 0x400000, path);
	decode_nth(p, &w, 2, &ev);
	ck_assert_int_eq(ev.type, TB_PMCLOG_MAP_IN);
	tb_text_init(&t, out, cap);
	if (json)
		tb_pmclog_json(&t, &ev);
	else
		tb_pmclog_text(&t, &ev);
	ck_assert(!tb_text_truncated(&t));
	tb_text_finish(&t);
	tb_plw_free(&w);
	free(p);
}

/*
 * The intended difference: JSON strings are tb_json_str's.  Valid UTF-8
 * (here "é", c3 a9) and DEL (7f) are kept as they are; before, the CLI
 * wrote every byte >= 0x7f as \u00XX ("caf\u00c3\u00a9", "\u007f"),
 * which turned "é" into two Latin-1 characters.  A byte that is not
 * UTF-8 is still \u00XX.  The text form keeps pmcstat's \xNN.
 */
START_TEST(json_strings_are_tb_json_str)
{
	char out[512];
	render_map_in("/caf\xc3\xa9/\x7f\xff\"\\\n", 1, out, sizeof(out));
	ck_assert_str_eq(out, "{\"offset\":112,\"type\":\"map_in\",\"tsc\":4294969696,\"fields\":"
			      "{\"pid\":7,\"start\":4194304,\"pathname\":"
			      "\"/caf\xc3\xa9/\x7f\\u00ff\\\"\\\\\\n\"}}\n");
	render_map_in("/caf\xc3\xa9/\x7f\xff\"\\\n", 0, out, sizeof(out));
	ck_assert_str_eq(out, "map-in    7 0x400000 \"/caf\\xc3\\xa9/\\x7f\\xff\\\"\\\\\\x0a\"\n");
}
END_TEST

/* A cut rendering says the whole size (the sink's size query) and keeps
 * a prefix of the whole. */
START_TEST(rendering_into_a_small_buffer)
{
	char whole[512], small[16];
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_text t;
	start_amd64(&w);
	decode_nth(p, &w, 1, &ev);
	tb_text_init(&t, whole, sizeof(whole));
	tb_pmclog_json(&t, &ev);
	tb_text_finish(&t);
	ck_assert_str_eq(whole, "{\"offset\":0,\"type\":\"initialize\",\"tsc\":4294967296,\"fields\":"
				"{\"version\":167772160,\"arch\":155,\"tsc_freq\":2400000000,"
				"\"ts\":{\"tv_sec\":1700000000,\"tv_nsec\":123456789},"
				"\"cpuid\":\"GenuineIntel-6-55-4\"}}\n");
	tb_text_init(&t, small, sizeof(small));
	tb_pmclog_json(&t, &ev);
	ck_assert_uint_eq(t.need, strlen(whole));
	ck_assert_uint_eq(t.len, sizeof(small) - 1);
	ck_assert(memcmp(small, whole, t.len) == 0);
	tb_plw_free(&w);
	free(p);
}
END_TEST

/*
 * The renderers write a record straight into the sink's tail when it has
 * room and piece by piece when it has not (and switch in the middle of a
 * long callchain): at every capacity the bytes are a prefix of the whole,
 * and the size said is the whole's.  The PCs take every way of the JSON
 * pairs (two user PCs, two kernel addresses, mixed, 0 and 2^64 - 1).
 */
START_TEST(rendering_at_every_room)
{
	static const uint8_t hdr[8] = { 2, 2, 3, 1, 1, 2, 0, 0 };
	uint64_t pcs[100], slots[8] = { 0, 11, 12, 13, 14, 15, 16, 17 };
	char *whole = malloc(1u << 16), *cut = malloc(1u << 16), num[32];
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	int json, nrec = 0;
	uint32_t i;
	ck_assert_ptr_nonnull(whole);
	ck_assert_ptr_nonnull(cut);
	for (i = 0; i < 100; i++)
		pcs[i] = i % 7 == 3 ? 18446744071562067968ull + i * 977u /* kernel */
			 : i % 7 == 5 ? (uint64_t)i << 40 /* neither */
				      : 0x400000u + i * 0x1234u; /* user */
	pcs[97] = 0;
	pcs[98] = UINT64_MAX;
	pcs[99] = 18446744070000000000ull; /* the first "1844674407..." */
	start_amd64(&w);
	tb_plw_map_in(&w, 7, 0x400000, "/caf\xc3\xa9/\x7f\x01\"\\");
	tb_plw_callchain(&w, 100, 100100, 0x100, 0x20001, pcs, 100);
	tb_plw_callchain_mp(&w, 1234, 100100, 0x100, 0x20003, hdr, slots, 8);
	tb_plw_raw(&w, 99, 24, 24, 0xAB);
	tb_plw_closelog(&w);
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w.buf, w.len), TB_OK);
	while (tb_pmclog_next(p, &ev, NULL) == TB_OK) {
		nrec++;
		for (json = 0; json < 2; json++) {
			tb_text t;
			size_t n, cap;
			tb_text_init(&t, whole, 1u << 16);
			(json ? tb_pmclog_json : tb_pmclog_text)(&t, &ev);
			ck_assert(!tb_text_truncated(&t));
			ck_assert_int_eq(tb_text_last(&t), '\n');
			n = t.len;
			for (cap = 1; cap < n + 2000; cap++) {
				tb_text_init(&t, cut, cap);
				(json ? tb_pmclog_json : tb_pmclog_text)(&t, &ev);
				ck_assert_uint_eq(t.need, n);
				ck_assert_uint_eq(t.len, n < cap ? n : cap - 1);
				ck_assert(memcmp(cut, whole, t.len) == 0);
			}
			whole[n] = '\0';
			if (json && ev.type == TB_PMCLOG_CALLCHAIN && ev.u.cc.npc == 100)
				for (i = 0; i < 100; i++) {
					snprintf(num, sizeof(num), "%c%llu%c", i ? ',' : '[',
						 (unsigned long long)pcs[i], i < 99 ? ',' : ']');
					ck_assert_msg(strstr(whole, num) != NULL,
						      "PC %u (%s) missing", i, num);
				}
		}
	}
	ck_assert_int_eq(nrec, 6);
	/* an event made by hand: slots past npc and a missing PC area read
	 * as 0, as tb_pmclog_cc_slot says */
	ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, w.buf, w.len), TB_OK);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(tb_pmclog_next(p, &ev, NULL), TB_OK);
	ck_assert_uint_eq(ev.u.cc.npc, 9);
	ev.u.cc.npc = 3; /* ibs-op's slot 3 and the PCs cut off */
	{
		tb_text t;
		tb_text_init(&t, whole, 1u << 16);
		tb_pmclog_text(&t, &ev);
		tb_text_finish(&t);
		ck_assert_str_eq(whole, "callchain 1234 0x100 2 4294967295 u\nibs-fetch 0x0 0xb\n"
					"ibs-op    0x0\n");
		ev.u.cc.npc = 2; /* ibs-fetch's slot 2 too */
		tb_text_init(&t, whole, 1u << 16);
		tb_pmclog_text(&t, &ev);
		tb_text_finish(&t);
		ck_assert_str_eq(whole, "callchain 1234 0x100 2 4294967294 u\nibs-fetch 0x0 0x0\n"
					"ibs-op    0x0\n");
		ev.u.cc.npc = 8;
		ev.u.cc.cpuflags = 0;
		ev.u.cc.pc = NULL;
		tb_text_init(&t, whole, 1u << 16);
		tb_pmclog_json(&t, &ev);
		tb_text_finish(&t);
		ck_assert(strstr(whole, "\"pc\":[0,0,0,0,0,0,0,0]") != NULL);
	}
	tb_plw_free(&w);
	free(whole);
	free(cut);
	free(p);
}
END_TEST

/* The table: every kind has a row whose names and numbers agree with
 * the decoder, and keys are unique within a record's present fields. */
START_TEST(record_table_rows)
{
	unsigned t;
	for (t = 0; t < (unsigned)TB_PMCLOG_TYPE_COUNT_; t++) {
		const tb_pmclog_record *r = tb_pmclog_record_of((tb_pmclog_type)t);
		unsigned n = 0;
		ck_assert_int_eq(r->type, (int)t);
		ck_assert_str_eq(r->name, tb_pmclog_type_name((tb_pmclog_type)t));
		ck_assert(strncmp(r->libpmc, "PMCLOG_TYPE_", 12) == 0);
		/* the lengths the renderers copy by, from the literals */
		ck_assert_uint_eq(r->name_len, strlen(r->name));
		ck_assert_uint_eq(r->pmcstat_len, strlen(r->pmcstat));
		while (r->fields[n].kind != TB_PMCLOG_F_END) {
			const tb_pmclog_field *f = &r->fields[n++];
			ck_assert_uint_eq(f->key_len, f->key ? strlen(f->key) : 0);
		}
		ck_assert_uint_eq(n, r->nfields);
	}
	ck_assert_ptr_eq(tb_pmclog_record_of(TB_PMCLOG_TYPE_COUNT_),
			 tb_pmclog_record_of(TB_PMCLOG_UNKNOWN));
	ck_assert_str_eq(tb_pmclog_record_of(TB_PMCLOG_CALLCHAIN)->libpmc, "PMCLOG_TYPE_CALLCHAIN");
	ck_assert_str_eq(tb_pmclog_record_of(TB_PMCLOG_PROC_CREATE)->pmcstat, "create");
	ck_assert_int_eq(tb_pmclog_record_of(TB_PMCLOG_THR_EXIT)->raw[0], 19);
	ck_assert_int_eq(tb_pmclog_record_of(TB_PMCLOG_THR_EXIT)->raw[1], -1);
	{
		/* a condition the table does not know holds; a known one is asked */
		tb_pmclog_event ev;
		tb_pmclog_field f = tb_pmclog_record_of(TB_PMCLOG_PROCEXEC)->fields[2];
		memset(&ev, 0, sizeof(ev));
		ck_assert_str_eq(f.key, "baseaddr");
		ck_assert_int_eq(tb_pmclog_field_on(&f, &ev), 0);
		ev.u.x.has_dyn = 1;
		ck_assert_int_eq(tb_pmclog_field_on(&f, &ev), 1);
		ev.u.x.has_dyn = 0;
		f.when = 200;
		ck_assert_int_eq(tb_pmclog_field_on(&f, &ev), 1);
		ev.legacy = 1; /* baseaddr is modern only */
		ck_assert_int_eq(tb_pmclog_field_on(&f, &ev), 0);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* PMCGROUPINHERITMISS (type 21, AMD's fork): one table row.           */

static void write_inherit_miss_log(tb_plw *w)
{
	start_amd64(w);
	tb_plw_pmcgroupinheritmiss(w, 0x10203040u, 4242);
	tb_plw_pmcgroupinheritmiss(w, 0x20000005u, -1);
	tb_plw_closelog(w);
}

START_TEST(pmcgroupinheritmiss_record)
{
	tb_plw w;
	tb_pmclog *p = new_decoder();
	tb_pmclog_event ev;
	tb_error e;
	char out[256];
	tb_text t;
	size_t k, full;
	write_inherit_miss_log(&w);
	decode_nth(p, &w, 2, &ev);
	ck_assert_int_eq(ev.type, TB_PMCLOG_PMCGROUPINHERITMISS);
	ck_assert_uint_eq(ev.raw_type, 21);
	ck_assert_uint_eq(ev.len, 24);
	ck_assert_uint_eq(ev.u.d.pmcid, 0x10203040u);
	ck_assert_int_eq(ev.u.d.pid, 4242);
	ck_assert_str_eq(tb_pmclog_type_name(ev.type), "pmcgroupinheritmiss");
	tb_text_init(&t, out, sizeof(out));
	tb_pmclog_text(&t, &ev);
	tb_pmclog_json(&t, &ev);
	tb_text_finish(&t);
	ck_assert_str_eq(out, "pmcgroupinheritmiss 0x10203040 4242\n"
			      "{\"offset\":112,\"type\":\"pmcgroupinheritmiss\",\"tsc\":4294969696,"
			      "\"fields\":{\"pmcid\":270544960,\"pid\":4242}}\n");
	ck_assert_int_eq(tb_pmclog_next(p, &ev, NULL), TB_OK);
	ck_assert_int_eq(ev.u.d.pid, -1);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, NULL), TB_OK);
	ck_assert_int_eq(ev.type, TB_PMCLOG_CLOSELOG);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, NULL), TB_END);
	/* every prefix: the whole records, then a truncation at the cut one */
	full = w.len;
	for (k = 0; k < full; k++) {
		uint8_t *cut = malloc(k ? k : 1);
		size_t n = 0;
		tb_status st;
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, w.buf, k);
		ck_assert_int_eq(tb_pmclog_open_buffer(p, NULL, cut, k), TB_OK);
		while ((st = tb_pmclog_next(p, &ev, &e)) == TB_OK)
			n++;
		if (k == 0 || k == 112 || k == 136 || k == 160)
			ck_assert_int_eq(st, TB_END);
		else
			ck_assert_int_eq(st, TB_ERR_TRUNCATED);
		ck_assert_uint_eq(n, k < 112 ? 0 : k < 136 ? 1 : k < 160 ? 2 : 3);
		free(cut);
	}
	/* a fixed size: 28 bytes is refused before a field is read */
	tb_plw_free(&w);
	start_amd64(&w);
	tb_plw_raw(&w, 21, 28, 28, 0);
	decode_nth(p, &w, 1, &ev);
	ck_assert_int_eq(tb_pmclog_next(p, &ev, &e), TB_ERR_LENGTH);
	ck_assert_uint_eq(e.offset, 112);
	/* legacy logs have no type 21: an unknown record, skipped by length */
	tb_plw_free(&w);
	tb_plw_init_arch(&w, TB_PLW_LEGACY_AMD64);
	tb_plw_initialize(&w, 0x87, 0, 0, 0, "");
	tb_plw_raw(&w, 21, 24, 24, 0);
	decode_nth(p, &w, 2, &ev);
	ck_assert_int_eq(ev.type, TB_PMCLOG_UNKNOWN);
	tb_plw_free(&w);
	free(p);
}
END_TEST

/* Its golden log and the CLI's text and JSON of it. */
START_TEST(golden_pmcgroupinheritmiss)
{
	tb_plw w;
	write_inherit_miss_log(&w);
	golden_cli(&w, "inheritmiss-amd64", "", "txt");
	golden_cli(&w, "inheritmiss-amd64", "--json ", "json");
	tb_plw_free(&w);
}
END_TEST

Suite *tb_suite_pmclog(void)
{
	Suite *s = suite_create("pmclog");
	TCase *tc = tcase_create("records");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, all_kinds_every_arch, 0, TB_PLW_ARCH_COUNT);
	tcase_add_loop_test(tc, strings_and_pcs_by_pointer, 0, TB_PLW_ARCH_COUNT);
	tcase_add_loop_test(tc, stale_bytes_ignored, 0, TB_PLW_ARCH_COUNT);
	tcase_add_test(tc, detection);
	tcase_add_test(tc, wrong_address_width_is_reported);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, bug1_lengths_0_to_3);
	tcase_add_test(tc, bug2_lengths_beyond_any_record);
	tcase_add_test(tc, bug3_fixed_types_exact);
	tcase_add_test(tc, bug4_short_callchain);
	tcase_add_test(tc, bug5_more_pcs_than_maximum);
	tcase_add_test(tc, bug6_paths);
	tcase_add_test(tc, bug7_initialize);
	tcase_add_test(tc, bug8_allocatedyn_overwrite);
	tcase_add_test(tc, bug9_bad_magic_and_unknown_types);
	tcase_add_test(tc, bug10_closelog);
	tcase_add_test(tc, multipart_bounds);
	tcase_add_test(tc, pmcstat_asserts_are_values);
	tcase_add_test(tc, fragments_need_a_generation);
	tcase_add_test(tc, api_contract);
	suite_add_tcase(s, tc);
	tc = tcase_create("streaming");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, every_prefix, 0, TB_PLW_ARCH_COUNT);
	tcase_add_loop_test(tc, every_split, 0, TB_PLW_ARCH_COUNT);
	tcase_add_test(tc, random_splits_of_a_sampling_session);
	suite_add_tcase(s, tc);
	tc = tcase_create("time");
	tcase_add_test(tc, tsc_delta_exact);
	tcase_add_test(tc, tsc_to_wall_time);
	tcase_add_test(tc, tsc_to_wall_time_limits);
	suite_add_tcase(s, tc);
	tc = tcase_create("golden");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, golden_logs_and_cli_output, 0, TB_PLW_ARCH_COUNT);
	tcase_add_test(tc, golden_sampling_session);
	tcase_add_test(tc, golden_process_session);
	tcase_add_test(tc, cli_streams_pipes_and_reports_bad_input);
	tcase_add_test(tc, cli_write_errors_exit_2);
	tcase_add_test(tc, cli_output_across_blocks);
	tcase_add_loop_test(tc, cli_numbers_are_printfs, 0, 3);
	tcase_add_loop_test(tc, cli_jobs_output_is_the_one_thread_output, 0, TB_PLW_ARCH_COUNT);
	suite_add_tcase(s, tc);
	tc = tcase_create("render");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, library_renders_the_goldens, 0, 11);
	tcase_add_test(tc, json_strings_are_tb_json_str);
	tcase_add_test(tc, rendering_into_a_small_buffer);
	tcase_add_test(tc, rendering_at_every_room);
	tcase_add_test(tc, record_table_rows);
	suite_add_tcase(s, tc);
	tc = tcase_create("inheritmiss");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pmcgroupinheritmiss_record);
	tcase_add_test(tc, golden_pmcgroupinheritmiss);
	suite_add_tcase(s, tc);
	return s;
}
