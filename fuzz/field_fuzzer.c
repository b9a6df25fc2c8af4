/*
 * A fixed set of real and spec-derived schemas; the record comes from the
 * input.  Input: SELECT RECORD, where SELECT bit 0 = big-endian and the
 * other bits pick the schema when the record's own common_type names none.
 * Every field of every kind is read and checked against the record bounds.
 */
#include <string.h>

#include "format_check.h"

#define COMMON                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"   \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"   \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char *const schemas[] = {
	/* Linux 6.18 formats, as the kernel prints them (print fmts cut) */
	"name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n",
	"name: sched_process_exec\nID: 365\nformat:\n" COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n",
	"name: sys_enter_openat\nID: 782\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n",
	"name: print\nID: 5\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\nprint fmt: \"\"\n",
	"name: dma_unmap_sg\nID: 100\nformat:\n" COMMON
	"\tfield:__data_loc char[] device;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u64[] addrs;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:enum dma_data_direction dir;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long attrs;\toffset:24;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n",
	/* spec-derived: legacy and relative locs, cpumask, odd sizes */
	"name: old\nID: 2\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\n"
	"\tfield:__data_loc name;\toffset:12;\tsize:2;\n\nprint fmt: \"\"\n",
	"name: rel\nID: 3\nformat:\n" COMMON
	"\tfield:__rel_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc cpumask_t *[] cpumask;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] bits;\toffset:16;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n",
	"name: ints\nID: 7\nformat:\n" COMMON
	"\tfield:s8 a;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:s16 c;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:s32 d;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:s64 g;\toffset:20;\tsize:8;\tsigned:1;\n"
	"\tfield:struct x three;\toffset:39;\tsize:3;\tsigned:0;\n"
	"\tfield:s16 arr[2];\toffset:42;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 tail[];\toffset:46;\tsize:0;\tsigned:0;\n\nprint fmt: \"\"\n",
};

#define NSCHEMA (sizeof(schemas) / sizeof(schemas[0]))

static tb_format events[NSCHEMA];
static tb_field fields[256];
static uint32_t index_slots[64];
static tb_format_set set;
static int ready;

static void setup(void)
{
	size_t i;
	TB_FUZZ_CHECK(tb_format_set_init(&set, events, NSCHEMA, fields, 256, index_slots,
					 64, 8) == TB_OK);
	for (i = 0; i < NSCHEMA; i++)
		TB_FUZZ_CHECK(tb_format_set_add(&set, schemas[i], strlen(schemas[i]), "fuzz",
						4, NULL, NULL) == TB_OK);
	ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const tb_format *f;
	tb_error e;
	int be;
	if (!ready)
		setup();
	if (size == 0)
		return 0;
	be = data[0] & 1;
	data++;
	size--;
	if (tb_format_set_lookup(&set, data, size, be, &f, &e) != TB_OK)
		f = &set.events[(data[-1] >> 1) % NSCHEMA];
	tb_fuzz_read_fields(f, data, size, be);
	return 0;
}
