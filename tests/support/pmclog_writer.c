/* A test-only pmclog writer: see tests/pmclog_writer.h. */
#include "../pmclog_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Raw type numbers: modern (12+) and legacy (<= 11). */
enum {
	M_CLOSELOG = 1, M_DROPNOTIFY = 2, M_INITIALIZE = 3,
	L_CLOSELOG = 0, L_DROPNOTIFY = 1, L_INITIALIZE = 2, L_PCSAMPLE = 4,
	T_PMCALLOCATE = 5, T_PMCATTACH, T_PMCDETACH, T_PROCCSW, T_PROCEXEC,
	T_PROCEXIT, T_PROCFORK, T_SYSEXIT, T_USERDATA, T_MAP_IN, T_MAP_OUT,
	T_CALLCHAIN, T_PMCALLOCATEDYN, M_THR_CREATE, M_THR_EXIT, M_PROC_CREATE,
	M_PMCGROUPINHERITMISS
};

void tb_plw_init(tb_plw *w, int legacy, int be, unsigned a, uint32_t version)
{
	memset(w, 0, sizeof(*w));
	w->legacy = legacy;
	w->be = be;
	w->a = a;
	w->version = version;
	w->tsc = 0x100000000ULL;
	w->tsc_step = 2400;
	w->sec = 1700000000u;
	w->nsec = 1000;
	w->stale = 0xA5;
	w->cputype = legacy ? 0x87 : 0x9B;
	w->tsc_freq = TB_PLW_TSC_FREQ;
}

void tb_plw_init_arch(tb_plw *w, int arch)
{
	switch (arch) {
	case TB_PLW_I386:
		tb_plw_init(w, 0, 0, 4, 0x09030000u);
		w->ts32 = 1;
		break;
	case TB_PLW_ARM64:
		tb_plw_init(w, 0, 0, 8, 0x0A000000u);
		w->cputype = 0x601;
		w->tsc_freq = 0;
		break;
	case TB_PLW_ARMV7:
		tb_plw_init(w, 0, 0, 4, 0x0A000000u);
		w->cputype = 0x501;
		w->tsc_freq = 0;
		break;
	case TB_PLW_POWERPC64BE:
		tb_plw_init(w, 0, 1, 8, 0x0A000000u);
		w->cputype = 0x302;
		w->tsc_freq = 0;
		break;
	case TB_PLW_LEGACY_AMD64:
		tb_plw_init(w, 1, 0, 8, 0x03010000u);
		break;
	case TB_PLW_LEGACY_I386:
		tb_plw_init(w, 1, 0, 4, 0x03010000u);
		break;
	case TB_PLW_LEGACY_BE32:
		tb_plw_init(w, 1, 1, 4, 0x03010000u);
		w->cputype = 0x300;
		break;
	default: /* TB_PLW_AMD64 */
		tb_plw_init(w, 0, 0, 8, 0x0A000000u);
		break;
	}
}

const char *tb_plw_arch_name(int arch)
{
	static const char *const names[TB_PLW_ARCH_COUNT] = {
		"amd64", "i386", "arm64", "armv7", "powerpc64be",
		"legacy-amd64", "legacy-i386", "legacy-be32",
	};
	return arch >= 0 && arch < TB_PLW_ARCH_COUNT ? names[arch] : "?";
}

void tb_plw_arch_options(int arch, tb_pmclog_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	/* A legacy log does not say its address width. */
	if (arch == TB_PLW_LEGACY_I386 || arch == TB_PLW_LEGACY_BE32)
		opt->addr_size = 4;
}

void tb_plw_free(tb_plw *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

/* ---- byte placement ---- */

static void put32(tb_plw *w, size_t off, uint32_t v)
{
	uint8_t *p = w->buf + off;
	if (w->be) {
		p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
		p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
	} else {
		p[3] = (uint8_t)(v >> 24); p[2] = (uint8_t)(v >> 16);
		p[1] = (uint8_t)(v >> 8); p[0] = (uint8_t)v;
	}
}

/* The kernel's 64-bit helper: low word first, each word host order. */
static void put64w(tb_plw *w, size_t off, uint64_t v)
{
	put32(w, off, (uint32_t)v);
	put32(w, off + 4, (uint32_t)(v >> 32));
}

/* A native 64-bit integer. */
static void put64n(tb_plw *w, size_t off, uint64_t v)
{
	if (w->be) {
		put32(w, off, (uint32_t)(v >> 32));
		put32(w, off + 4, (uint32_t)v);
	} else {
		put64w(w, off, v);
	}
}

static void putaddr(tb_plw *w, size_t off, uint64_t v)
{
	if (w->a == 8)
		put64w(w, off, v);
	else
		put32(w, off, (uint32_t)v);
}

static void putbytes(tb_plw *w, size_t off, const void *s, size_t n)
{
	memcpy(w->buf + off, s, n);
}

/* Reserve a record (length rounded up to 4, like the kernel), fill it
 * with stale bytes and write the header word and time prefix. */
static size_t begin(tb_plw *w, unsigned type, size_t reqlen)
{
	size_t len = (reqlen + 3) & ~(size_t)3, off = w->len;
	if (w->len + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + len)
			cap *= 2;
		w->buf = realloc(w->buf, cap);
		if (!w->buf) {
			fprintf(stderr, "pmclog writer: out of memory\n");
			abort();
		}
		w->cap = cap;
	}
	memset(w->buf + off, w->stale, len);
	w->len += len;
	put32(w, off, 0xEEu << 24 | (uint32_t)type << 16 | (uint32_t)(len & 0xFFFF));
	if (w->legacy) {
		put32(w, off + 4, w->sec);
		put32(w, off + 8, w->nsec & 0x0FFFFFFFu); /* the legacy mask */
		w->nsec += 1000;
		if (w->nsec >= 1000000000u) {
			w->nsec -= 1000000000u;
			w->sec++;
		}
	} else {
		if (w->have_spare_next) /* PMCALLOCATEDYN's overshoot */
			putbytes(w, off + 4, w->spare_next, 4);
		w->have_spare_next = 0;
		put64n(w, off + 8, w->tsc);
		w->tsc += w->tsc_step;
	}
	return off;
}

static unsigned pre(const tb_plw *w)
{
	return w->legacy ? 12u : 16u;
}

/* ---- records ---- */

void tb_plw_closelog(tb_plw *w)
{
	begin(w, w->legacy ? L_CLOSELOG : M_CLOSELOG, pre(w));
}

void tb_plw_dropnotify(tb_plw *w)
{
	begin(w, w->legacy ? L_DROPNOTIFY : M_DROPNOTIFY, pre(w));
}

void tb_plw_initialize(tb_plw *w, uint32_t cputype, uint64_t tsc_freq,
		       int64_t wall_sec, int64_t wall_nsec, const char *cpuid)
{
	size_t o, cpuid_off;
	char id[64];
	if (w->legacy) {
		o = begin(w, L_INITIALIZE, 20);
		put32(w, o + 12, w->version);
		put32(w, o + 16, cputype);
		return;
	}
	o = begin(w, M_INITIALIZE, w->ts32 ? 104 : 112);
	put32(w, o + 16, w->version);
	put32(w, o + 20, cputype);
	put64w(w, o + 24, tsc_freq);
	if (w->ts32) {
		put32(w, o + 32, (uint32_t)wall_sec);
		put32(w, o + 36, (uint32_t)wall_nsec);
		cpuid_off = 40;
	} else {
		put64n(w, o + 32, (uint64_t)wall_sec);
		if (w->a == 8) {
			put64n(w, o + 40, (uint64_t)wall_nsec);
		} else { /* 32-bit long plus structure padding */
			put32(w, o + 40, (uint32_t)wall_nsec);
			put32(w, o + 44, 0);
		}
		cpuid_off = 48;
	}
	memset(id, 0, sizeof(id));
	strncpy(id, cpuid, sizeof(id) - 1);
	putbytes(w, o + cpuid_off, id, sizeof(id));
}

void tb_plw_pmcallocate(tb_plw *w, uint32_t pmcid, uint32_t event,
			uint32_t flags, uint64_t rate)
{
	size_t o;
	if (w->legacy) {
		o = begin(w, T_PMCALLOCATE, 24);
		put32(w, o + 12, pmcid);
		put32(w, o + 16, event);
		put32(w, o + 20, flags);
		return;
	}
	o = begin(w, T_PMCALLOCATE, 40);
	put32(w, o + 16, pmcid);
	put32(w, o + 20, event);
	put32(w, o + 24, flags);
	put32(w, o + 28, 0);
	put64w(w, o + 32, rate);
}

void tb_plw_pmcallocatedyn(tb_plw *w, uint32_t pmcid, uint32_t event,
			   uint32_t flags, uint64_t rate, const char *name,
			   int struct_layout)
{
	char nm[64];
	size_t o;
	memset(nm, 0, sizeof(nm));
	strncpy(nm, name, sizeof(nm) - 1);
	if (w->legacy) {
		o = begin(w, T_PMCALLOCATEDYN, 88);
		put32(w, o + 12, pmcid);
		put32(w, o + 16, event);
		put32(w, o + 20, flags);
		putbytes(w, o + 24, nm, 64);
		return;
	}
	o = begin(w, T_PMCALLOCATEDYN, 96);
	put32(w, o + 16, pmcid);
	put32(w, o + 20, event);
	put32(w, o + 24, flags);
	put32(w, o + 28, 0);
	if (struct_layout) {
		putbytes(w, o + 32, nm, 64);
		return;
	}
	/* The kernel writes 104 bytes into a 96-byte reservation: the next
	 * record's header overwrites 4 of the 8 extra, its spare keeps 4. */
	put64w(w, o + 32, rate);
	putbytes(w, o + 40, nm, 56);
	memcpy(w->spare_next, nm + 60, 4);
	w->have_spare_next = 1;
}

/* A record ending in a path: strlen+1 bytes, rounding left stale. */
static size_t path_record(tb_plw *w, unsigned type, size_t path_off,
			  const char *path)
{
	size_t n = strlen(path) + 1;
	size_t o = begin(w, type, path_off + n);
	putbytes(w, o + path_off, path, n);
	return o;
}

void tb_plw_pmcattach(tb_plw *w, uint32_t pmcid, int32_t pid, const char *path)
{
	size_t h = pre(w);
	size_t o = path_record(w, T_PMCATTACH, h + 8, path);
	put32(w, o + h, pmcid);
	put32(w, o + h + 4, (uint32_t)pid);
}

void tb_plw_pmcdetach(tb_plw *w, uint32_t pmcid, int32_t pid)
{
	size_t h = pre(w);
	size_t o = begin(w, T_PMCDETACH, h + 8);
	put32(w, o + h, pmcid);
	put32(w, o + h + 4, (uint32_t)pid);
}

/* Legacy PROCCSW and PROCEXIT share one layout. */
static void legacy_pmc_value_pid(tb_plw *w, unsigned type, uint32_t pmcid,
				 uint64_t value, int32_t pid)
{
	size_t o = begin(w, type, 28);
	put32(w, o + 12, pmcid);
	put64w(w, o + 16, value);
	put32(w, o + 24, (uint32_t)pid);
}

void tb_plw_proccsw(tb_plw *w, uint32_t pmcid, int32_t pid, int32_t tid,
		    uint64_t value)
{
	size_t o;
	if (w->legacy) {
		legacy_pmc_value_pid(w, T_PROCCSW, pmcid, value, pid);
		return;
	}
	o = begin(w, T_PROCCSW, 40);
	put64w(w, o + 16, value);
	put32(w, o + 24, pmcid);
	put32(w, o + 28, (uint32_t)pid);
	put32(w, o + 32, (uint32_t)tid);
	put32(w, o + 36, 0);
}

void tb_plw_procexec(tb_plw *w, int32_t pid, uint32_t pmcid, uint64_t base,
		     uint64_t dyn, const char *path)
{
	size_t o;
	if (w->legacy) {
		o = path_record(w, T_PROCEXEC, 20 + w->a, path);
		put32(w, o + 12, (uint32_t)pid);
		putaddr(w, o + 16, base);
		put32(w, o + 16 + w->a, pmcid);
		return;
	}
	if ((w->version >> 24) >= 0x0A) {
		o = path_record(w, T_PROCEXEC, 24 + 2 * w->a, path);
		putaddr(w, o + 24 + w->a, dyn);
	} else {
		o = path_record(w, T_PROCEXEC, 24 + w->a, path);
	}
	put32(w, o + 16, (uint32_t)pid);
	put32(w, o + 20, pmcid);
	putaddr(w, o + 24, base);
}

void tb_plw_procexit(tb_plw *w, uint32_t pmcid, int32_t pid, uint64_t value)
{
	size_t o;
	if (w->legacy) {
		legacy_pmc_value_pid(w, T_PROCEXIT, pmcid, value, pid);
		return;
	}
	o = begin(w, T_PROCEXIT, 32);
	put32(w, o + 16, pmcid);
	put32(w, o + 20, (uint32_t)pid);
	put64w(w, o + 24, value);
}

void tb_plw_procfork(tb_plw *w, int32_t oldpid, int32_t newpid)
{
	size_t h = pre(w);
	size_t o = begin(w, T_PROCFORK, h + 8);
	put32(w, o + h, (uint32_t)oldpid);
	put32(w, o + h + 4, (uint32_t)newpid);
}

/* SYSEXIT, USERDATA and THR_EXIT: one word, and a modern pad never written. */
static void one_word(tb_plw *w, unsigned type, uint32_t v)
{
	size_t h = pre(w);
	size_t o = begin(w, type, w->legacy ? h + 4 : h + 8);
	put32(w, o + h, v);
}

void tb_plw_sysexit(tb_plw *w, int32_t pid)
{
	one_word(w, T_SYSEXIT, (uint32_t)pid);
}

void tb_plw_userdata(tb_plw *w, uint32_t userdata)
{
	one_word(w, T_USERDATA, userdata);
}

void tb_plw_thr_exit(tb_plw *w, int32_t tid)
{
	one_word(w, M_THR_EXIT, (uint32_t)tid);
}

/* AMD's fork: pmcid and pid after the prefix, 24 bytes (spec 4.1). */
void tb_plw_pmcgroupinheritmiss(tb_plw *w, uint32_t pmcid, int32_t pid)
{
	size_t o = begin(w, M_PMCGROUPINHERITMISS, 24);
	put32(w, o + 16, pmcid);
	put32(w, o + 20, (uint32_t)pid);
}

void tb_plw_map_in(tb_plw *w, int32_t pid, uint64_t start, const char *path)
{
	size_t o;
	if (w->legacy) {
		o = path_record(w, T_MAP_IN, 16 + w->a, path);
		put32(w, o + 12, (uint32_t)pid);
		putaddr(w, o + 16, start);
		return;
	}
	o = path_record(w, T_MAP_IN, 24 + w->a, path);
	put32(w, o + 16, (uint32_t)pid);
	put32(w, o + 20, 0);
	putaddr(w, o + 24, start);
}

void tb_plw_map_out(tb_plw *w, int32_t pid, uint64_t start, uint64_t end)
{
	size_t o;
	if (w->legacy) {
		o = begin(w, T_MAP_OUT, 16 + 2 * w->a);
		put32(w, o + 12, (uint32_t)pid);
		putaddr(w, o + 16, start);
		putaddr(w, o + 16 + w->a, end);
		return;
	}
	o = begin(w, T_MAP_OUT, 24 + 2 * w->a);
	put32(w, o + 16, (uint32_t)pid);
	put32(w, o + 20, 0);
	putaddr(w, o + 24, start);
	putaddr(w, o + 24 + w->a, end);
}

/* The fixed CALLCHAIN fields; returns the offset of the first slot. */
static size_t cc_begin(tb_plw *w, int32_t pid, int32_t tid, uint32_t pmcid,
		       uint32_t cpuflags, size_t nbytes)
{
	size_t o;
	if (w->legacy) {
		o = begin(w, T_CALLCHAIN, 24 + nbytes);
		put32(w, o + 12, (uint32_t)pid);
		put32(w, o + 16, pmcid);
		put32(w, o + 20, cpuflags);
		return o + 24;
	}
	o = begin(w, T_CALLCHAIN, 32 + nbytes);
	put32(w, o + 16, (uint32_t)pid);
	put32(w, o + 20, (uint32_t)tid);
	put32(w, o + 24, pmcid);
	put32(w, o + 28, cpuflags);
	return o + 32;
}

void tb_plw_callchain(tb_plw *w, int32_t pid, int32_t tid, uint32_t pmcid,
		      uint32_t cpuflags, const uint64_t *pcs, uint32_t npc)
{
	size_t s = cc_begin(w, pid, tid, pmcid, cpuflags, (size_t)npc * w->a);
	uint32_t i;
	for (i = 0; i < npc; i++)
		putaddr(w, s + (size_t)i * w->a, pcs[i]);
}

void tb_plw_callchain_mp(tb_plw *w, int32_t pid, int32_t tid, uint32_t pmcid,
			 uint32_t cpuflags, const uint8_t hdr[8],
			 const uint64_t *slots, uint32_t n)
{
	size_t s = cc_begin(w, pid, tid, pmcid, cpuflags, 8 + (size_t)n * w->a);
	uint32_t i;
	putbytes(w, s, hdr, 8);
	for (i = 0; i < n; i++)
		putaddr(w, s + 8 + (size_t)i * w->a, slots[i]);
}

void tb_plw_pcsample(tb_plw *w, int32_t pid, uint64_t pc, uint32_t pmcid,
		     uint32_t usermode)
{
	size_t o = begin(w, L_PCSAMPLE, 24 + w->a);
	put32(w, o + 12, (uint32_t)pid);
	putaddr(w, o + 16, pc);
	put32(w, o + 16 + w->a, pmcid);
	put32(w, o + 20 + w->a, usermode);
}

static void put_name20(tb_plw *w, size_t off, const char *name)
{
	char nm[20];
	memset(nm, 0, sizeof(nm));
	strncpy(nm, name, sizeof(nm) - 1);
	putbytes(w, off, nm, sizeof(nm));
}

void tb_plw_thr_create(tb_plw *w, int32_t tid, int32_t pid, uint32_t flags,
		       const char *name)
{
	size_t o = begin(w, M_THR_CREATE, 52);
	put32(w, o + 16, (uint32_t)tid);
	put32(w, o + 20, (uint32_t)pid);
	put32(w, o + 24, flags);
	put32(w, o + 28, 0);
	put_name20(w, o + 32, name);
}

void tb_plw_proc_create(tb_plw *w, int32_t pid, uint32_t flags,
			const char *comm)
{
	size_t o = begin(w, M_PROC_CREATE, 44);
	put32(w, o + 16, (uint32_t)pid);
	put32(w, o + 20, flags);
	put_name20(w, o + 24, comm);
}

void tb_plw_raw(tb_plw *w, uint8_t type, uint16_t len_field, size_t total,
		uint8_t fill)
{
	size_t o;
	uint8_t saved = w->stale;
	w->stale = fill;
	o = begin(w, 0, total < 16 ? 16 : total);
	w->stale = saved;
	w->len = o + total; /* exactly `total` bytes, any length field */
	if (total >= 4)
		put32(w, o, 0xEEu << 24 | (uint32_t)type << 16 | len_field);
}

/* ---- sessions ---- */

/* An address as the writer's width can hold it. */
static uint64_t addr(const tb_plw *w, uint64_t v)
{
	return w->a == 8 ? v : (uint32_t)v;
}

size_t tb_plw_session_all(tb_plw *w)
{
	const uint64_t user[3] = { addr(w, 0x201234), addr(w, 0x205678),
				   addr(w, 0x209abc) };
	const uint64_t kern[1] = { addr(w, 0xffffffff80abcdefULL) };
	const uint64_t late[1] = { addr(w, 0x401000) };
	/* IBS: 4 fetch slots, 8 op slots, 2 kernel PCs, then 1 user PC. */
	static const uint8_t mp_hdr[8] = { 2, 4, 3, 8, 1, 2, 0, 0 };
	uint64_t mp[15];
	size_t n = 0, i;
	const uint32_t pmc = 0x00000100u, proc_pmc = 0xFFF20300u;
	for (i = 0; i < 15; i++)
		mp[i] = addr(w, 0x1000 * (i + 1) + i);
	tb_plw_initialize(w, w->cputype, w->tsc_freq, TB_PLW_WALL_SEC,
			  TB_PLW_WALL_NSEC, TB_PLW_CPUID); n++;
	tb_plw_pmcallocate(w, pmc, 0x1234, 0x180, 65536); n++;
	tb_plw_pmcallocatedyn(w, 0x00000200u, 0x2000, 0x80, 1000,
			      "PAGE_FAULT.ALL", 0); n++;
	tb_plw_pmcattach(w, proc_pmc, 1234, "/usr/bin/make"); n++;
	tb_plw_map_in(w, -1, addr(w, 0xffffffff80200000ULL), "/boot/kernel/kernel"); n++;
	tb_plw_map_in(w, 1234, addr(w, 0x200000), "/lib/libc.so.7"); n++;
	tb_plw_procexec(w, 1234, proc_pmc, addr(w, 0x1000000), addr(w, 0x200000),
			"/usr/bin/make"); n++;
	if (!w->legacy) {
		tb_plw_proc_create(w, 1235, 0x10004000u, "make"); n++;
		tb_plw_thr_create(w, 100123, 1235, 0x4000u, "make"); n++;
	}
	tb_plw_procfork(w, 1234, 1235); n++;
	tb_plw_callchain(w, 1234, 100100, pmc, 3u << 16 | TB_PMCLOG_CC_USERSPACE,
			 user, 3); n++;
	tb_plw_callchain(w, 0, 100000, pmc, 1u << 16, kern, 1); n++;
	if (!w->legacy) {
		tb_plw_callchain_mp(w, 1234, 100100, pmc,
				    2u << 16 | TB_PMCLOG_CC_MULTIPART |
					    TB_PMCLOG_CC_USERSPACE,
				    mp_hdr, mp, 15); n++;
	} else {
		tb_plw_pcsample(w, 1234, addr(w, 0x2000a0), pmc, 1); n++;
	}
	tb_plw_proccsw(w, proc_pmc, 1234, 100100, 123456789012ULL); n++;
	tb_plw_procexit(w, proc_pmc, 1234, 9876543210ULL); n++;
	tb_plw_userdata(w, 0xdeadbeefu); n++;
	tb_plw_map_out(w, 1234, addr(w, 0x200000), addr(w, 0x3a0000)); n++;
	tb_plw_sysexit(w, 1235); n++;
	if (!w->legacy) {
		tb_plw_thr_exit(w, 100123); n++;
	}
	tb_plw_dropnotify(w); n++;
	tb_plw_pmcdetach(w, proc_pmc, 1234); n++;
	tb_plw_raw(w, 0x30, (uint16_t)(pre(w) + 8), pre(w) + 8, 0x5A); n++;
	tb_plw_closelog(w); n++;
	/* Another CPU's buffer, flushed after CLOSELOG (spec section 1). */
	tb_plw_callchain(w, 7, 100007, pmc, 5u << 16 | TB_PMCLOG_CC_USERSPACE,
			 late, 1); n++;
	return n;
}

static uint32_t xorshift(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

size_t tb_plw_session_sampling(tb_plw *w, size_t nsamples,
			       unsigned max_depth, uint32_t seed)
{
	uint64_t pcs[512];
	size_t n = 0, i;
	unsigned cpu, d;
	int32_t pid = 100;
	char path[64];
	if (max_depth == 0 || max_depth > 512)
		max_depth = 512;
	if (seed == 0)
		seed = 1;
	tb_plw_initialize(w, w->cputype, w->tsc_freq, TB_PLW_WALL_SEC,
			  TB_PLW_WALL_NSEC, TB_PLW_CPUID); n++;
	for (cpu = 0; cpu < 4; cpu++, n++)
		tb_plw_pmcallocate(w, cpu << 20 | 0x100u, 0x1234, 0x180, 65536);
	tb_plw_map_in(w, -1, addr(w, 0xffffffff80200000ULL), "/boot/kernel/kernel"); n++;
	for (i = 0; i < nsamples; i++) {
		uint32_t r = xorshift(&seed);
		if (i % 200 == 199) {
			tb_plw_procfork(w, pid, pid + 1); n++;
			pid++;
			if (!w->legacy) {
				tb_plw_proc_create(w, pid, 0x4000, "worker"); n++;
			}
			snprintf(path, sizeof(path), "/usr/local/bin/worker%d", (int)(pid % 97));
			tb_plw_procexec(w, pid, 0x100, addr(w, 0x1000000),
					addr(w, 0x200000), path); n++;
			tb_plw_map_in(w, pid, addr(w, 0x800200000ULL), "/lib/libc.so.7"); n++;
		}
		if (i % 500 == 499) {
			tb_plw_map_out(w, pid - 1, addr(w, 0x800200000ULL),
				       addr(w, 0x800400000ULL)); n++;
			tb_plw_sysexit(w, pid - 1); n++;
		}
		cpu = r & 3;
		d = 1 + (r >> 8) % max_depth;
		for (unsigned k = 0; k < d; k++)
			pcs[k] = addr(w, (r & 1 ? 0xffffffff80300000ULL : 0x200000ULL) +
						 (uint64_t)xorshift(&seed) % 0x100000);
		tb_plw_callchain(w, pid, 100000 + pid, cpu << 20 | 0x100u,
				 cpu << 16 | (r & 1 ? 0 : TB_PMCLOG_CC_USERSPACE),
				 pcs, d);
		n++;
	}
	tb_plw_closelog(w); n++;
	return n;
}

size_t tb_plw_session_process(tb_plw *w, size_t nswitches)
{
	const uint32_t pmc = 0xFFF20300u; /* any CPU, thread-counting mode */
	size_t n = 0, i;
	tb_plw_initialize(w, w->cputype, w->tsc_freq, TB_PLW_WALL_SEC,
			  TB_PLW_WALL_NSEC, TB_PLW_CPUID); n++;
	tb_plw_pmcallocate(w, pmc, 0x1234, 0x4 | 0x8, 0); n++;
	tb_plw_pmcattach(w, pmc, 4321, "/usr/bin/cc"); n++;
	tb_plw_procexec(w, 4321, pmc, addr(w, 0x1000000), addr(w, 0x200000),
			"/usr/bin/cc"); n++;
	for (i = 0; i < nswitches; i++, n++)
		tb_plw_proccsw(w, pmc, 4321, 100500 + (int32_t)(i % 3),
			       1000000 + 7919 * (uint64_t)i);
	tb_plw_procexit(w, pmc, 4321, 1000000 * (uint64_t)nswitches); n++;
	tb_plw_pmcdetach(w, pmc, 4321); n++;
	tb_plw_closelog(w); n++;
	return n;
}
