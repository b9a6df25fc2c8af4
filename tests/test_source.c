/*
 * Sources (tracebound/source.h): the one rule for a capture's parts, over
 * an in-memory file tree: cpuN names and their order, the header_page's
 * places, subbuf_kb, the byte order a dump's first page says, formats
 * found under events/, the optional tables, files told by their magic,
 * and every refusal with the part it names.
 */
#include <check.h>
#include <string.h>

#include "tracebound/source.h"

Suite *tb_suite_source(void);

typedef struct node {
	const char *path;   /* full path; data NULL: a directory */
	const char *data;
	size_t len;
} node;

typedef struct tree {
	const node *n;
	size_t count;
} tree;

static tb_status t_load(void *ctx, const char *path, const void **data, size_t *len)
{
	const tree *t = ctx;
	size_t i;
	for (i = 0; i < t->count; i++)
		if (!strcmp(t->n[i].path, path)) {
			if (!t->n[i].data)
				return TB_ERR_ARG;
			*data = t->n[i].data;
			*len = t->n[i].len;
			return TB_OK;
		}
	return TB_NOT_FOUND;
}

/* Children in the order the tree gives them (written sorted). */
static tb_status t_list(void *ctx, const char *path, size_t index, char *name, size_t cap,
			int *is_dir)
{
	const tree *t = ctx;
	size_t i, k = 0, n = strlen(path);
	int found = 0;
	for (i = 0; i < t->count; i++) {
		const char *p = t->n[i].path;
		if (!strcmp(p, path)) {
			if (t->n[i].data)
				return TB_NOT_FOUND;
			found = 1;
		} else if (!strncmp(p, path, n) && p[n] == '/' && !strchr(p + n + 1, '/') &&
			   k++ == index) {
			ck_assert_uint_lt(strlen(p + n + 1), cap);
			strcpy(name, p + n + 1);
			*is_dir = t->n[i].data == NULL;
			return TB_OK;
		}
	}
	return found ? TB_END : TB_NOT_FOUND;
}

static unsigned char heap[1 << 16];

static tb_status open_tree(tb_source *s, const node *n, size_t count, const tb_source_desc *d,
			   tb_error *e)
{
	static tree t;
	static tb_arena a;
	static tb_mem mem;
	tb_source_io io = { t_load, t_list, &t };
	t.n = n;
	t.count = count;
	tb_arena_init(&a, heap, sizeof(heap));
	mem = tb_arena_mem(&a);
	return tb_source_open(s, d, &io, &mem, e);
}

#define HP64 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" \
	     "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" \
	     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" \
	     "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"
#define FMT "name: tick\nID: 42\nformat:\n" \
	    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	    "print fmt: \"x\"\n"

/* A page header: time 1, commit 0x20 (LE or BE, 8 bytes). */
static const char le_page[16] = { 1, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0 };
static const char be_page[16] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x20 };

#define N(p, d) { p, d, sizeof(d) - 1 }
#define DIR(p) { p, NULL, 0 }

static tb_source src;

START_TEST(folder_rule)
{
	static const node n[] = {
		DIR("d"), { "d/cpu0", le_page, 16 }, { "d/cpu1.raw", le_page, 16 },
		N("d/cpu1.txt", "x"), DIR("d/cpu2.raw"), N("d/cpux", "x"),
		DIR("d/events"), N("d/events/header_page", HP64), DIR("d/events/test"),
		DIR("d/events/test/noformat"), DIR("d/events/test/tick"),
		N("d/events/test/tick/format", FMT), N("d/saved_cmdlines", "1 a\n"),
		N("d/subbuf_kb", "16\n"), N("d/trace_clock", "[local] global\n"),
	};
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.path = "d";
	ck_assert_int_eq(open_tree(&src, n, sizeof(n) / sizeof(n[0]), &d, &e), TB_OK);
	ck_assert_int_eq(src.kind, TB_SOURCE_RAW);
	ck_assert_uint_eq(src.src.nraw, 2);
	ck_assert_str_eq(src.dump_paths[0], "d/cpu0");
	ck_assert_str_eq(src.dump_paths[1], "d/cpu1.raw");
	ck_assert_uint_eq(src.src.raw[1].cpu, 1);
	ck_assert_uint_eq(src.src.nformats, 1);
	ck_assert_int_eq((int)src.src.formats[0].system.len, 4);
	ck_assert(!memcmp(src.src.formats[0].system.ptr, "test", 4));
	/* the header_page in events/ comes before subbuf_kb (16 KiB, said) */
	ck_assert_str_eq(src.header_page, "d/events/header_page");
	ck_assert_int_eq(src.subbuf_from, TB_SOURCE_FROM_HEADER_PAGE);
	ck_assert_uint_eq(src.layout.subbuf_size, 4096);
	ck_assert_uint_eq(src.subbuf_kb, 16384);
	ck_assert_uint_eq(src.src.cmdlines.len, 4);
	ck_assert_uint_eq(src.src.clock.len, 15);
	ck_assert_int_eq(src.layout.big_endian, 0);
	ck_assert_int_eq(src.order_detected, 1);
	tb_source_close(&src);
}
END_TEST

START_TEST(subbuf_kb_and_byte_order)
{
	static const node n[] = { DIR("d"), { "d/cpu3.raw", be_page, 16 }, N("d/subbuf_kb", "16\n") };
	static const node bad[] = { DIR("d"), { "d/cpu0", le_page, 16 }, N("d/subbuf_kb", "3\n") };
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.path = "d";
	ck_assert_int_eq(open_tree(&src, n, 3, &d, &e), TB_OK);
	ck_assert_int_eq(src.subbuf_from, TB_SOURCE_FROM_SUBBUF_KB);
	ck_assert_uint_eq(src.layout.subbuf_size, 16384);
	ck_assert_int_eq(src.src.big_endian, 1);
	ck_assert_int_eq(src.events_found, 0);
	ck_assert_uint_eq(src.src.raw[0].cpu, 3);
	tb_source_close(&src);
	/* a size given comes before subbuf_kb; an order given before the dumps' */
	d.subbuf_size = 8192;
	d.byte_order = TB_SOURCE_ORDER_LITTLE;
	ck_assert_int_eq(open_tree(&src, n, 3, &d, &e), TB_OK);
	ck_assert_uint_eq(src.layout.subbuf_size, 8192);
	ck_assert_int_eq(src.src.big_endian, 0);
	tb_source_close(&src);
	/* 3 KiB is no sub-buffer size: refused when it decides, naming it */
	memset(&d, 0, sizeof(d));
	d.path = "d";
	ck_assert_int_eq(open_tree(&src, bad, 3, &d, &e), TB_ERR_VALUE);
	ck_assert_str_eq(src.part, "d/subbuf_kb");
	tb_source_close(&src);
	d.subbuf_size = 4096;
	ck_assert_int_eq(open_tree(&src, bad, 3, &d, &e), TB_OK);
	ck_assert_int_eq(src.subbuf_kb_bad, 1);
	tb_source_close(&src);
}
END_TEST

START_TEST(dumps_given)
{
	static const node n[] = { DIR("x"), { "x/a.bin", le_page, 16 }, { "x/cpu7.raw", le_page, 16 },
				  N("x/header_page", HP64) };
	static const char *const files[] = { "x/a.bin", "x/cpu7.raw" };
	static const char *const missing[] = { "x/none" };
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.dumps = files;
	d.ndumps = 2;
	ck_assert_int_eq(open_tree(&src, n, 4, &d, &e), TB_OK);
	ck_assert_uint_eq(src.src.raw[0].cpu, 0); /* its position */
	ck_assert_uint_eq(src.src.raw[1].cpu, 7);
	ck_assert_str_eq(src.header_page, "x/header_page");
	tb_source_close(&src);
	d.dumps = missing;
	d.ndumps = 1;
	ck_assert_int_eq(open_tree(&src, n, 4, &d, &e), TB_NOT_FOUND);
	ck_assert_str_eq(src.part, "x/none");
	tb_source_close(&src);
	/* layout only: nothing loaded */
	d.flags = TB_SOURCE_NO_DUMPS;
	ck_assert_int_eq(open_tree(&src, n, 4, &d, &e), TB_OK);
	ck_assert_ptr_null(src.src.raw[0].data);
	tb_source_close(&src);
	d.flags = 0;
	d.dumps = files;
	d.header_page = "x/hp";
	ck_assert_int_eq(open_tree(&src, n, 4, &d, &e), TB_NOT_FOUND);
	ck_assert_str_eq(src.part, "x/hp");
	tb_source_close(&src);
}
END_TEST

START_TEST(refusals)
{
	static const node twice[] = { DIR("d"), { "d/cpu0", le_page, 16 }, { "d/cpu0.raw", le_page, 16 } };
	static const node none[] = { DIR("d"), N("d/header_page", HP64) };
	static const node badhp[] = { DIR("d"), { "d/cpu0", le_page, 16 }, N("d/header_page", "junk") };
	static const node files[] = { N("t.dat", "\x17\x08\x44tracing6\0"), N("p.data", "PERFILE2xxxxxxxx"),
				      N("q.data", "2ELIFREPxxxxxxxx"), N("z", "hello") };
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.path = "d";
	ck_assert_int_eq(open_tree(&src, twice, 3, &d, &e), TB_ERR_DUPLICATE);
	ck_assert_str_eq(src.part, "d/cpu0.raw");
	tb_source_close(&src);
	ck_assert_int_eq(open_tree(&src, none, 2, &d, &e), TB_NOT_FOUND);
	ck_assert_str_eq(src.part, "d");
	tb_source_close(&src);
	ck_assert(tb_is_malformed(open_tree(&src, badhp, 3, &d, &e)) ||
		  e.status == TB_ERR_UNSUPPORTED);
	ck_assert_str_eq(src.part, "d/header_page");
	tb_source_close(&src);
	d.events = "d/ev";
	ck_assert_int_eq(open_tree(&src, badhp, 3, &d, &e), TB_NOT_FOUND);
	ck_assert_str_eq(src.part, "d/ev");
	tb_source_close(&src);
	memset(&d, 0, sizeof(d));
	d.path = "t.dat";
	ck_assert_int_eq(open_tree(&src, files, 4, &d, &e), TB_OK);
	ck_assert_int_eq(src.kind, TB_SOURCE_DAT);
	ck_assert_uint_eq(src.src.dat_len, 12);
	d.path = "p.data";
	ck_assert_int_eq(open_tree(&src, files, 4, &d, &e), TB_OK);
	ck_assert_int_eq(src.kind, TB_SOURCE_PERF);
	ck_assert_uint_eq(src.src.perf_len, 16);
	ck_assert_ptr_null(src.src.dat);
	d.path = "q.data";
	ck_assert_int_eq(open_tree(&src, files, 4, &d, &e), TB_OK);
	ck_assert_int_eq(src.kind, TB_SOURCE_PERF);
	d.path = "z";
	ck_assert_int_eq(open_tree(&src, files, 4, &d, &e), TB_ERR_MAGIC);
	ck_assert_str_eq(src.part, "z");
	d.path = "nothing";
	ck_assert_int_eq(open_tree(&src, files, 4, &d, &e), TB_NOT_FOUND);
	ck_assert_int_eq(tb_source_open(&src, NULL, NULL, NULL, &e), TB_ERR_ARG);
}
END_TEST

/* A folder that changes between the count and the fill: from the third
 * listing of "d" on (the first tells a folder, the second counts), every
 * listing gives longer names than were counted. */
static const node *before, *after;
static size_t nbefore, nafter, listings;

static tb_status t_list_changing(void *ctx, const char *path, size_t index, char *name, size_t cap,
				 int *is_dir)
{
	tree t;
	(void)ctx;
	if (index == 0 && !strcmp(path, "d"))
		listings++;
	t.n = listings > 2 ? after : before;
	t.count = listings > 2 ? nafter : nbefore;
	return t_list(&t, path, index, name, cap, is_dir);
}

static tb_status t_load_after(void *ctx, const char *path, const void **data, size_t *len)
{
	tree t;
	(void)ctx;
	ck_assert_ptr_nonnull(path); /* never a path the region could not hold */
	t.n = after;
	t.count = nafter;
	return t_load(&t, path, data, len);
}

START_TEST(folder_changes_between_passes)
{
	static const node a[] = { DIR("d"), { "d/cpu1", le_page, 16 }, { "d/cpu2", le_page, 16 },
				  { "d/cpu3", le_page, 16 } };
	static const node b[] = { DIR("d"), { "d/cpu00001.raw", le_page, 16 },
				  { "d/cpu00002.raw", le_page, 16 }, { "d/cpu00003.raw", le_page, 16 } };
	static const node fa[] = { DIR("d"), { "d/cpu0", le_page, 16 }, DIR("d/events"),
				   DIR("d/events/s"), DIR("d/events/s/t"),
				   N("d/events/s/t/format", FMT) };
	static const node fb[] = { DIR("d"), { "d/cpu0", le_page, 16 }, DIR("d/events"),
				   DIR("d/events/sys_whose_name_is_much_longer_than_the_one_counted_in_the_first_pass"),
				   DIR("d/events/sys_whose_name_is_much_longer_than_the_one_counted_in_the_first_pass/t"),
				   N("d/events/sys_whose_name_is_much_longer_than_the_one_counted_in_the_first_pass/t/format", FMT) };
	tb_source_io io = { t_load_after, t_list_changing, NULL };
	tb_arena ar;
	tb_mem mem;
	tb_source_desc d;
	tb_error e;
	memset(&d, 0, sizeof(d));
	d.path = "d";
	before = a, nbefore = 4, after = b, nafter = 4, listings = 0;
	tb_arena_init(&ar, heap, sizeof(heap));
	mem = tb_arena_mem(&ar);
	ck_assert_int_eq(tb_source_open(&src, &d, &io, &mem, &e), TB_ERR_ARG);
	ck_assert_str_eq(e.what, "the folder changed while it was read");
	tb_source_close(&src);
	/* the system's name, kept in the fill, longer than counted */
	before = fa, nbefore = 6, after = fb, nafter = 6, listings = 0;
	tb_arena_init(&ar, heap, sizeof(heap));
	mem = tb_arena_mem(&ar);
	ck_assert_int_eq(tb_source_open(&src, &d, &io, &mem, &e), TB_ERR_ARG);
	ck_assert_str_eq(e.what, "the folder changed while it was read");
	tb_source_close(&src);
}
END_TEST

START_TEST(detect_order)
{
	char p[16];
	ck_assert_int_eq(tb_source_detect_order(le_page, 16, 8), 0);
	ck_assert_int_eq(tb_source_detect_order(be_page, 16, 8), 1);
	ck_assert_int_eq(tb_source_detect_order(le_page, 15, 8), -1);
	ck_assert_int_eq(tb_source_detect_order(le_page, 12, 4), 0);
	memset(p, 0, sizeof(p));
	ck_assert_int_eq(tb_source_detect_order(p, 16, 8), -1); /* empty: tells nothing */
	/* the missed-events flags (bits 31, 30) do not hide the order */
	memcpy(p, le_page, 16);
	p[11] = (char)0xc0;
	ck_assert_int_eq(tb_source_detect_order(p, 16, 8), 0);
	ck_assert_int_eq(tb_source_probe("PERFILE2", 8), TB_SOURCE_PERF);
	ck_assert_int_eq(tb_source_probe("PERFILE", 7), TB_SOURCE_NONE);
}
END_TEST

Suite *tb_suite_source(void)
{
	Suite *s = suite_create("source");
	TCase *t = tcase_create("source");
	tcase_add_test(t, folder_rule);
	tcase_add_test(t, subbuf_kb_and_byte_order);
	tcase_add_test(t, dumps_given);
	tcase_add_test(t, refusals);
	tcase_add_test(t, detect_order);
	tcase_add_test(t, folder_changes_between_passes);
	suite_add_tcase(s, t);
	return s;
}
