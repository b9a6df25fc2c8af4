/*
 * A test-only pmclog writer: builds logs byte for byte the way the FreeBSD
 * kernel writes them (spec sections 2-5), for either generation, byte
 * order and address width.  No real captures exist, so every pmclog test,
 * seed, golden file and benchmark input comes from here.
 *
 * Bytes the kernel never writes (the modern pl_spare, the SYSEXIT /
 * USERDATA / THR_EXIT pads, the rounding after paths) are filled with
 * "stale" garbage, as recycled kernel buffers would hold.  The kernel's
 * PMCALLOCATEDYN overshoot (8 bytes past the record) is reproduced: the
 * last name bytes land in the next record's pl_spare.
 *
 * Not part of the library: it allocates (malloc) and aborts on OOM.
 */
#ifndef TB_PMCLOG_WRITER_H
#define TB_PMCLOG_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/pmclog.h"

typedef struct tb_plw {
	uint8_t *buf;
	size_t len, cap;
	int be;              /* big-endian writer */
	int legacy;          /* FreeBSD <= 11 layouts */
	unsigned a;          /* address width, 4 or 8 */
	int ts32;            /* i386: 32-bit time_t -> 104-byte INITIALIZE */
	uint32_t version;    /* PMC_VERSION written in INITIALIZE */
	uint32_t cputype;    /* pl_cpu written by the sessions */
	uint64_t tsc_freq;   /* pl_tsc_freq written by the sessions */
	uint64_t tsc;        /* header TSC of the next modern record */
	uint64_t tsc_step;   /* added after every record */
	uint32_t sec, nsec;  /* header time of the next legacy record */
	uint8_t stale;       /* byte value of never-written bytes */
	uint8_t spare_next[4];
	int have_spare_next;
} tb_plw;

/* Machines of spec section 10 / issue 4. */
enum tb_plw_arch {
	TB_PLW_AMD64,        /* modern, LE, A=8, v0x0A */
	TB_PLW_I386,         /* modern, LE, A=4, 104-byte INITIALIZE, v0x09 */
	TB_PLW_ARM64,        /* modern, LE, A=8, tsc_freq 0 */
	TB_PLW_ARMV7,        /* modern, LE, A=4, 112-byte INITIALIZE */
	TB_PLW_POWERPC64BE,  /* modern, BE, A=8 */
	TB_PLW_LEGACY_AMD64, /* FreeBSD 10.4: legacy, LE, A=8, v0x03 */
	TB_PLW_LEGACY_I386,  /* legacy, LE, A=4 */
	TB_PLW_LEGACY_BE32,  /* legacy 32-bit powerpc: BE, A=4 */
	TB_PLW_ARCH_COUNT
};

void tb_plw_init(tb_plw *w, int legacy, int be, unsigned a, uint32_t version);
void tb_plw_init_arch(tb_plw *w, int arch);
const char *tb_plw_arch_name(int arch);
/* Decoder options a reader needs for the arch (address width where the
 * log cannot tell it). */
void tb_plw_arch_options(int arch, tb_pmclog_options *opt);
void tb_plw_free(tb_plw *w);

/* Records (values as the kernel would log them). */
void tb_plw_closelog(tb_plw *w);
void tb_plw_dropnotify(tb_plw *w);
void tb_plw_initialize(tb_plw *w, uint32_t cputype, uint64_t tsc_freq,
		       int64_t wall_sec, int64_t wall_nsec, const char *cpuid);
void tb_plw_pmcallocate(tb_plw *w, uint32_t pmcid, uint32_t event,
			uint32_t flags, uint64_t rate);
/* struct_layout 0: kernel writer (rate at 32, name at 40, 8-byte
 * overshoot); 1: the structure's layout (name at 32). */
void tb_plw_pmcallocatedyn(tb_plw *w, uint32_t pmcid, uint32_t event,
			   uint32_t flags, uint64_t rate, const char *name,
			   int struct_layout);
void tb_plw_pmcattach(tb_plw *w, uint32_t pmcid, int32_t pid, const char *path);
void tb_plw_pmcdetach(tb_plw *w, uint32_t pmcid, int32_t pid);
void tb_plw_proccsw(tb_plw *w, uint32_t pmcid, int32_t pid, int32_t tid,
		    uint64_t value);
/* base is the entry address for single-address layouts; dyn is written
 * only by the base+dyn layout (modern, version >= 0x0A). */
void tb_plw_procexec(tb_plw *w, int32_t pid, uint32_t pmcid, uint64_t base,
		     uint64_t dyn, const char *path);
void tb_plw_procexit(tb_plw *w, uint32_t pmcid, int32_t pid, uint64_t value);
void tb_plw_procfork(tb_plw *w, int32_t oldpid, int32_t newpid);
void tb_plw_sysexit(tb_plw *w, int32_t pid);
void tb_plw_userdata(tb_plw *w, uint32_t userdata);
void tb_plw_map_in(tb_plw *w, int32_t pid, uint64_t start, const char *path);
void tb_plw_map_out(tb_plw *w, int32_t pid, uint64_t start, uint64_t end);
void tb_plw_callchain(tb_plw *w, int32_t pid, int32_t tid, uint32_t pmcid,
		      uint32_t cpuflags, const uint64_t *pcs, uint32_t npc);
/* Multipart (IBS): the 8-byte part header, then n slots. */
void tb_plw_callchain_mp(tb_plw *w, int32_t pid, int32_t tid, uint32_t pmcid,
			 uint32_t cpuflags, const uint8_t hdr[8],
			 const uint64_t *slots, uint32_t n);
void tb_plw_pcsample(tb_plw *w, int32_t pid, uint64_t pc, uint32_t pmcid,
		     uint32_t usermode);
void tb_plw_thr_create(tb_plw *w, int32_t tid, int32_t pid, uint32_t flags,
		       const char *name);
void tb_plw_thr_exit(tb_plw *w, int32_t tid);
void tb_plw_pmcgroupinheritmiss(tb_plw *w, uint32_t pmcid, int32_t pid);
void tb_plw_proc_create(tb_plw *w, int32_t pid, uint32_t flags,
			const char *comm);
/* Any header word and `total` bytes (payload after the prefix: fill). */
void tb_plw_raw(tb_plw *w, uint8_t type, uint16_t len_field, size_t total,
		uint8_t fill);

/* A log with every record kind the generation has (spec section 10 order,
 * plus an unknown type and a record after CLOSELOG).  Returns the number
 * of records written. */
size_t tb_plw_session_all(tb_plw *w);
/* System-wide sampling: `nsamples` callchains of 1..max_depth PCs among
 * forks, execs, maps and exits.  Deterministic for a given seed. */
size_t tb_plw_session_sampling(tb_plw *w, size_t nsamples,
			       unsigned max_depth, uint32_t seed);

/* Process mode (pmcstat -P ... -O): attach, exec, `nswitches` context
 * switches with PROCCSW, PROCEXIT, detach, close. */
size_t tb_plw_session_process(tb_plw *w, size_t nswitches);

/* Values session_all uses, for tests that check them. */
#define TB_PLW_CPUID "GenuineIntel-6-55-4"
#define TB_PLW_TSC_FREQ 2400000000ULL
#define TB_PLW_WALL_SEC 1700000000LL
#define TB_PLW_WALL_NSEC 123456789LL

#endif
