/*
 * lib/protobuf.c (the wire-format writer) and lib/perfetto.c (records as
 * Perfetto trace packets).  Expected bytes come from the protobuf
 * encoding spec (developers.google.com/protocol-buffers/docs/encoding:
 * 150 as field 1 is 08 96 01, "testing" as field 2 is 12 07 ..., an
 * embedded message as field 3 is 1a 03 08 96 01) and from Perfetto's
 * schema (the field numbers, through the generated table that the last
 * test checks against the schema).  The output of the converter is read
 * back with a small wire-format reader written here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebound/tracebound.h"
#include "datwriter.h"
#include "testutil.h"

Suite *tb_suite_protobuf(void);

/* ---- a tiny wire-format reader for the checks ---- */

typedef struct pbr {
	const uint8_t *p, *end;
} pbr;

typedef struct pbf {
	uint32_t field;
	unsigned wire;
	uint64_t v;             /* varint / fixed value */
	const uint8_t *data;    /* LEN: the bytes */
	size_t len;
} pbf;

static int rd_varint(pbr *r, uint64_t *v)
{
	unsigned shift = 0;
	*v = 0;
	while (r->p < r->end && shift < 64) {
		uint8_t b = *r->p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 1;
		shift += 7;
	}
	return 0;
}

/* 1: a field read; 0: the end; -1: malformed. */
static int rd_field(pbr *r, pbf *f)
{
	uint64_t tag;
	if (r->p == r->end)
		return 0;
	if (!rd_varint(r, &tag))
		return -1;
	f->field = (uint32_t)(tag >> 3);
	f->wire = (unsigned)(tag & 7);
	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case 0:
		return rd_varint(r, &f->v) ? 1 : -1;
	case 1:
	case 5: {
		size_t n = f->wire == 1 ? 8 : 4, i;
		if ((size_t)(r->end - r->p) < n)
			return -1;
		f->v = 0;
		for (i = 0; i < n; i++)
			f->v |= (uint64_t)r->p[i] << (8 * i);
		r->p += n;
		return 1;
	}
	case 2:
		if (!rd_varint(r, &f->v) || f->v > (uint64_t)(r->end - r->p))
			return -1;
		f->data = r->p;
		f->len = (size_t)f->v;
		r->p += f->len;
		return 1;
	default:
		return -1;
	}
}

/* The first occurrence of field n in msg (0 when absent). */
static int find(const uint8_t *msg, size_t len, uint32_t n, pbf *out)
{
	pbr r = { msg, msg + len };
	int k;
	while ((k = rd_field(&r, out)) == 1)
		if (out->field == n)
			return 1;
	ck_assert_int_eq(k, 0);
	return 0;
}

static size_t count(const uint8_t *msg, size_t len, uint32_t n)
{
	pbr r = { msg, msg + len };
	pbf f;
	size_t c = 0;
	int k;
	while ((k = rd_field(&r, &f)) == 1)
		c += f.field == n;
	ck_assert_int_eq(k, 0);
	return c;
}

/* ---- output sinks ---- */

typedef struct sink {
	uint8_t buf[1 << 16];
	size_t len;
	int calls, fail_at;     /* fail the fail_at-th call (1-based), 0 never */
} sink;

static tb_status sink_write(void *ctx, const void *p, size_t n)
{
	sink *s = ctx;
	s->calls++;
	if (s->fail_at && s->calls >= s->fail_at)
		return TB_ERR_ARG;
	ck_assert_uint_le(n, sizeof(s->buf) - s->len);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return TB_OK;
}

/* ---- the writer ---- */

START_TEST(varint_edges)
{
	static const struct { uint64_t v; size_t n; uint8_t b[10]; } cases[] = {
		{ 0, 1, { 0x00 } },
		{ 1, 1, { 0x01 } },
		{ 127, 1, { 0x7f } },
		{ 128, 2, { 0x80, 0x01 } },
		{ 150, 2, { 0x96, 0x01 } },
		{ 300, 2, { 0xac, 0x02 } },
		{ 16383, 2, { 0xff, 0x7f } },
		{ 16384, 3, { 0x80, 0x80, 0x01 } },
		{ 0xffffffffu, 5, { 0xff, 0xff, 0xff, 0xff, 0x0f } },
		{ 1ull << 63, 10, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 } },
		{ UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t out[TB_PB_VARINT_MAX];
		ck_assert_uint_eq(tb_pb_varint_len(cases[i].v), cases[i].n);
		ck_assert_uint_eq(tb_pb_put_varint(out, cases[i].v), cases[i].n);
		ck_assert_mem_eq(out, cases[i].b, cases[i].n);
	}
}
END_TEST

START_TEST(zigzag_values)
{
	static const struct { int64_t v; uint64_t z; } cases[] = {
		{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2147483647, 4294967294u },
		{ -2147483648LL, 4294967295u }, { INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_uint_eq(tb_pb_zigzag(cases[i].v), cases[i].z);
		ck_assert_int_eq(tb_pb_unzigzag(cases[i].z), cases[i].v);
	}
}
END_TEST

/* The spec's examples, and a negative int32 taking ten bytes. */
START_TEST(spec_examples)
{
	uint8_t buf[64];
	tb_pb pb;
	static const uint8_t t1[] = { 0x08, 0x96, 0x01 };
	static const uint8_t t2[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	static const uint8_t t3[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const uint8_t neg[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	static const uint8_t sneg[] = { 0x08, 0x03 };
	static const uint8_t fx[] = { 0x0d, 0x78, 0x56, 0x34, 0x12,
				      0x11, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_int(&pb, 1, 150);
	ck_assert_uint_eq(pb.len, sizeof(t1));
	ck_assert_mem_eq(buf, t1, sizeof(t1));
	tb_pb_reset(&pb);
	tb_pb_str(&pb, 2, "testing");
	ck_assert_uint_eq(pb.len, sizeof(t2));
	ck_assert_mem_eq(buf, t2, sizeof(t2));
	tb_pb_reset(&pb);
	tb_pb_begin(&pb, 3);
	tb_pb_int(&pb, 1, 150);
	tb_pb_end(&pb);
	ck_assert_uint_eq(pb.len, sizeof(t3));
	ck_assert_mem_eq(buf, t3, sizeof(t3));
	tb_pb_reset(&pb);
	tb_pb_int(&pb, 1, -1);
	ck_assert_uint_eq(pb.len, sizeof(neg));
	ck_assert_mem_eq(buf, neg, sizeof(neg));
	tb_pb_reset(&pb);
	tb_pb_sint(&pb, 1, -2);
	ck_assert_mem_eq(buf, sneg, sizeof(sneg));
	tb_pb_reset(&pb);
	tb_pb_fixed32(&pb, 1, 0x12345678u);
	tb_pb_fixed64(&pb, 2, 0x0102030405060708ull);
	ck_assert_uint_eq(pb.len, sizeof(fx));
	ck_assert_mem_eq(buf, fx, sizeof(fx));
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
}
END_TEST

/* A bytes field of every length from 0 to 40 (the copies of up to 16
 * bytes take other paths than longer ones), between two neighbours that
 * must stay intact: tag, length, the bytes. */
START_TEST(bytes_every_short_length)
{
	uint8_t buf[128], src[40];
	size_t n, i;
	tb_pb pb;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(0xa0 + i);
	for (n = 0; n <= sizeof(src); n++) {
		memset(buf, 0x55, sizeof(buf));
		tb_pb_init(&pb, buf, sizeof(buf));
		tb_pb_int(&pb, 1, 7);
		tb_pb_bytes(&pb, 2, src, n);
		tb_pb_int(&pb, 3, 9);
		ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
		ck_assert_uint_eq(pb.len, 2 + 2 + n + 2);
		ck_assert_uint_eq(buf[0], 0x08);
		ck_assert_uint_eq(buf[1], 7);
		ck_assert_uint_eq(buf[2], 0x12);
		ck_assert_uint_eq(buf[3], n);
		ck_assert_mem_eq(buf + 4, src, n);
		ck_assert_uint_eq(buf[4 + n], 0x18);
		ck_assert_uint_eq(buf[5 + n], 9);
		ck_assert_uint_eq(buf[6 + n], 0x55); /* nothing past the end */
	}
}
END_TEST

/* Bodies of 0, 127, 128, 16383, 16384 and 70000 bytes, nested twice:
 * every length is the minimal varint and the bodies are intact. */
START_TEST(nested_lengths)
{
	static const size_t sizes[] = { 0, 125, 126, 127, 128, 16383, 16384, 70000 };
	static uint8_t buf[80000], body[70000];
	size_t i, k;
	for (k = 0; k < sizeof(body); k++)
		body[k] = (uint8_t)(k * 7 + 1);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], inner, outer;
		tb_pb pb;
		pbf f, g;
		tb_pb_init(&pb, buf, sizeof(buf));
		tb_pb_begin(&pb, 7);
		tb_pb_uint(&pb, 1, 42);
		tb_pb_begin(&pb, 2000);
		tb_pb_raw(&pb, body, n);
		tb_pb_end(&pb);
		tb_pb_end(&pb);
		ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
		inner = n;
		outer = 2 + (2 + tb_pb_varint_len(inner) + inner); /* 2000 needs a 2-byte tag */
		ck_assert_uint_eq(pb.len, 1 + tb_pb_varint_len(outer) + outer);
		ck_assert(find(buf, pb.len, 7, &f));
		ck_assert_uint_eq(f.len, outer);
		ck_assert(find(f.data, f.len, 1, &g));
		ck_assert_uint_eq(g.v, 42);
		ck_assert(find(f.data, f.len, 2000, &g));
		ck_assert_uint_eq(g.len, n);
		ck_assert(n == 0 || !memcmp(g.data, body, n));
	}
}
END_TEST

/* Every capacity from 0 to the full size: too small counts exactly, big
 * enough gives the same bytes. */
START_TEST(buffer_limits)
{
	uint8_t full[512], buf[512];
	size_t n, cap;
	tb_pb pb;
	int j;
	tb_pb_init(&pb, full, sizeof(full));
	for (j = 0; j < 6; j++) {
		tb_pb_begin(&pb, 2);
		tb_pb_uint(&pb, 1, (uint64_t)j << 40);
		tb_pb_str(&pb, 3, "a string of thirty-two bytes....");
		tb_pb_begin(&pb, 4);
		tb_pb_sint(&pb, 5, -j);
		tb_pb_end(&pb);
		tb_pb_end(&pb);
	}
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
	n = pb.len;
	ck_assert_uint_gt(n, 128);
	for (cap = 0; cap <= n; cap++) {
		memset(buf, 0xee, sizeof(buf));
		tb_pb_init(&pb, buf, cap);
		for (j = 0; j < 6; j++) {
			tb_pb_begin(&pb, 2);
			tb_pb_uint(&pb, 1, (uint64_t)j << 40);
			tb_pb_str(&pb, 3, "a string of thirty-two bytes....");
			tb_pb_begin(&pb, 4);
			tb_pb_sint(&pb, 5, -j);
			tb_pb_end(&pb);
			tb_pb_end(&pb);
		}
		if (cap < n) {
			ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_NO_SPACE);
			ck_assert_uint_eq(pb.need, n);
		} else {
			ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
			ck_assert_mem_eq(buf, full, n);
		}
		ck_assert_uint_eq(buf[cap], 0xee); /* nothing past the capacity */
	}
	/* counting only */
	tb_pb_init(&pb, NULL, 1000);
	tb_pb_str(&pb, 1, "abc");
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(pb.need, 5);
}
END_TEST

START_TEST(misuse_and_callback_errors)
{
	uint8_t buf[64];
	tb_pb pb;
	sink *s = calloc(1, sizeof(*s));
	unsigned i;
	static const uint8_t framed[] = { 0x0a, 0x03, 0x08, 0x96, 0x01 };
	/* field numbers 0 and 2^29 */
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_uint(&pb, 0, 1);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_ARG);
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_uint(&pb, TB_PB_MAX_FIELD + 1, 1);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_ARG);
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_uint(&pb, TB_PB_MAX_FIELD, 1);
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
	ck_assert_uint_eq(pb.len, 6); /* a 5-byte tag */
	/* end without begin; flush with a message open */
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_end(&pb);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_ARG);
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_begin(&pb, 1);
	ck_assert_int_eq(tb_pb_flush(&pb, 0, sink_write, s), TB_ERR_ARG);
	ck_assert_int_eq(s->calls, 0);
	/* nesting limit */
	tb_pb_init(&pb, buf, sizeof(buf));
	for (i = 0; i <= TB_PB_MAX_DEPTH; i++)
		tb_pb_begin(&pb, 1);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_LIMIT);
	tb_pb_init(&pb, buf, sizeof(buf));
	for (i = 0; i < TB_PB_MAX_DEPTH; i++)
		tb_pb_begin(&pb, 1);
	for (i = 0; i < TB_PB_MAX_DEPTH; i++)
		tb_pb_end(&pb);
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
	ck_assert_uint_eq(pb.len, 2 * TB_PB_MAX_DEPTH);
	/* flush framed as field 1, then the buffer is empty */
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_int(&pb, 1, 150);
	ck_assert_int_eq(tb_pb_flush(&pb, 1, sink_write, s), TB_OK);
	ck_assert_uint_eq(s->len, sizeof(framed));
	ck_assert_mem_eq(s->buf, framed, sizeof(framed));
	ck_assert_uint_eq(pb.len, 0);
	/* a failing callback: returned, and sticky */
	s->calls = 0;
	s->fail_at = 2;
	tb_pb_int(&pb, 1, 150);
	ck_assert_int_eq(tb_pb_flush(&pb, 1, sink_write, s), TB_ERR_ARG);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_ARG);
	s->fail_at = 0;
	ck_assert_int_eq(tb_pb_flush(&pb, 1, sink_write, s), TB_ERR_ARG);
	ck_assert_int_eq(s->calls, 2);
	/* a message that did not fit is not flushed */
	tb_pb_init(&pb, buf, 2);
	tb_pb_str(&pb, 1, "abc");
	ck_assert_int_eq(tb_pb_flush(&pb, 0, sink_write, s), TB_ERR_NO_SPACE);
	ck_assert_int_eq(s->calls, 2);
	free(s);
}
END_TEST

/* Every error path of a field: the tag refused, the length growing past
 * the end, the callback failing on the frame or on the body. */
START_TEST(field_errors)
{
	uint8_t buf[300], body[200];
	tb_pb pb;
	sink *s = calloc(1, sizeof(*s));
	memset(body, 'b', sizeof(body));
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_begin(&pb, 0);
	tb_pb_end(&pb);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_ARG);
	ck_assert_uint_eq(pb.depth, 0);
	tb_pb_init(&pb, buf, sizeof(buf));
	tb_pb_fixed32(&pb, 0, 1);
	tb_pb_fixed64(&pb, 0, 1);
	tb_pb_bytes(&pb, 0, "x", 1);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_ARG);
	ck_assert_uint_eq(pb.len, 0);
	/* the body fits, the 2-byte length of a 200-byte body does not */
	tb_pb_init(&pb, buf, 1 + 1 + 200);
	tb_pb_begin(&pb, 1);
	tb_pb_raw(&pb, body, 200);
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
	tb_pb_end(&pb);
	ck_assert_int_eq(tb_pb_status(&pb), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(pb.need, 203);
	/* one byte more and it fits, body moved intact */
	tb_pb_init(&pb, buf, 203);
	tb_pb_begin(&pb, 1);
	tb_pb_raw(&pb, body, 200);
	tb_pb_end(&pb);
	ck_assert_int_eq(tb_pb_status(&pb), TB_OK);
	ck_assert_uint_eq(buf[1], 0xc8);
	ck_assert_uint_eq(buf[2], 0x01);
	ck_assert_mem_eq(buf + 3, body, 200);
	/* the callback fails on the frame */
	s->fail_at = 1;
	ck_assert_int_eq(tb_pb_flush(&pb, 1, sink_write, s), TB_ERR_ARG);
	ck_assert_int_eq(s->calls, 1);
	ck_assert_uint_eq(s->len, 0);
	ck_assert_int_eq(tb_pb_flush(NULL == s ? NULL : &pb, 0, sink_write, s), TB_ERR_ARG);
	free(s);
}
END_TEST

/* ---- the Perfetto writer ---- */

static const char sched_switch_fmt[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

static const char sys_enter_fmt[] =
	"name: sys_enter\nID: 443\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	"print fmt: \"NR %ld\", REC->id\n";

static const char exit_fmt[] =
	"name: sched_process_exit\nID: 369\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"comm=%s\", REC->comm\n";

/* A made-up event the schema has no message for: every kind of field. */
static const char mine_fmt[] =
	"name: my_event\nID: 900\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:s8 delta;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:u16 vals[2];\toffset:10;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 big;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%d\", REC->delta\n";

typedef struct pf_fixture {
	tb_format_set set;
	tb_format ev[8];
	tb_field fl[64];
	uint32_t ix[32];
	const tb_format *sw, *se, *ex, *mine;
} pf_fixture;

static void fixture(pf_fixture *fx)
{
	tb_format_error fe;
	ck_assert_int_eq(tb_format_set_init(&fx->set, fx->ev, 8, fx->fl, 64, fx->ix, 32, 8), TB_OK);
	ck_assert_int_eq(tb_format_set_add(&fx->set, sched_switch_fmt, strlen(sched_switch_fmt),
					   "sched", 5, &fx->sw, &fe), TB_OK);
	ck_assert_int_eq(tb_format_set_add(&fx->set, sys_enter_fmt, strlen(sys_enter_fmt),
					   "raw_syscalls", 12, &fx->se, &fe), TB_OK);
	ck_assert_int_eq(tb_format_set_add(&fx->set, exit_fmt, strlen(exit_fmt),
					   "sched", 5, &fx->ex, &fe), TB_OK);
	ck_assert_int_eq(tb_format_set_add(&fx->set, mine_fmt, strlen(mine_fmt),
					   "mine", 4, &fx->mine, &fe), TB_OK);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void sched_switch_rec(uint8_t rec[64], int32_t prev, int32_t next)
{
	memset(rec, 0, 64);
	rec[0] = 372 & 0xff;
	rec[1] = 372 >> 8;
	rec[2] = 0x9; /* common_flags */
	put32(rec + 4, (uint32_t)prev);
	memcpy(rec + 8, "bash", 4);
	put32(rec + 24, (uint32_t)prev);
	put32(rec + 28, 120);
	put64(rec + 32, (uint64_t)-1); /* prev_state: negative on purpose */
	memcpy(rec + 40, "swapper/1", 9);
	put32(rec + 56, (uint32_t)next);
	put32(rec + 60, (uint32_t)-5);
}

typedef struct pf_env {
	tb_pf_writer w;
	tb_pf_config cfg;
	uint8_t bundles[4 * 1024];
	uint8_t scratch[2048];
	sink out;
} pf_env;

static pf_env *env_new(size_t nslots, size_t bundle, unsigned flags)
{
	pf_env *e = calloc(1, sizeof(*e));
	tb_error err;
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_le(nslots * bundle, sizeof(e->bundles));
	e->cfg.write = sink_write;
	e->cfg.ctx = &e->out;
	e->cfg.bundles = e->bundles;
	e->cfg.nslots = nslots;
	e->cfg.bundle_size = bundle;
	e->cfg.scratch = e->scratch;
	e->cfg.scratch_size = sizeof(e->scratch);
	e->cfg.clock = "local";
	e->cfg.clock_len = 5;
	e->cfg.flags = flags;
	ck_assert_int_eq(tb_pf_init(&e->w, &e->cfg, &err), TB_OK);
	return e;
}

/* The i-th TracePacket of the output. */
static int packet_at(const sink *s, size_t i, pbf *pkt)
{
	pbr r = { s->buf, s->buf + s->len };
	size_t k = 0;
	int st;
	while ((st = rd_field(&r, pkt)) == 1) {
		ck_assert_uint_eq(pkt->field, 1); /* Trace.packet */
		ck_assert_uint_eq(pkt->wire, 2);
		if (k++ == i)
			return 1;
	}
	ck_assert_int_eq(st, 0);
	return 0;
}

START_TEST(typed_sched_switch)
{
	pf_fixture fx;
	pf_env *e = env_new(2, 1024, 0);
	uint8_t rec[64];
	tb_pf_record r;
	tb_error err;
	pbf pkt, b, ev, f, sw;
	fixture(&fx);
	sched_switch_rec(rec, 1234, 0);
	memset(&r, 0, sizeof(r));
	r.cpu = 1;
	r.ts = 5000000123ull;
	r.pid = 1234;
	r.format = fx.sw;
	r.data = rec;
	r.len = sizeof(rec);
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	ck_assert_int_eq(e->out.len, 0); /* buffered in its bundle */
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	ck_assert_str_eq(tb_pf_typed_name(&e->w, fx.sw), "sched_switch");
	ck_assert(packet_at(&e->out, 0, &pkt));
	ck_assert(!packet_at(&e->out, 1, &b));
	ck_assert(find(pkt.data, pkt.len, 10, &f)); /* trusted_packet_sequence_id */
	ck_assert_uint_eq(f.v, 1);
	ck_assert(find(pkt.data, pkt.len, 1, &b)); /* ftrace_events */
	ck_assert(find(b.data, b.len, 1, &f));
	ck_assert_uint_eq(f.v, 1); /* cpu */
	ck_assert(find(b.data, b.len, 5, &f));
	ck_assert_uint_eq(f.v, 3); /* FTRACE_CLOCK_LOCAL */
	ck_assert(find(b.data, b.len, 6, &f));
	ck_assert_uint_eq(f.v, 5000000123ull);
	ck_assert(find(b.data, b.len, 7, &f));
	ck_assert_uint_eq(f.v, 5000000123ull);
	ck_assert(!find(b.data, b.len, 3, &f)); /* no loss */
	ck_assert_uint_eq(count(b.data, b.len, 2), 1);
	ck_assert(find(b.data, b.len, 2, &ev));
	ck_assert(find(ev.data, ev.len, 1, &f));
	ck_assert_uint_eq(f.v, 5000000123ull);
	ck_assert(find(ev.data, ev.len, 2, &f));
	ck_assert_uint_eq(f.v, 1234);
	ck_assert(find(ev.data, ev.len, 5, &f));
	ck_assert_uint_eq(f.v, 9); /* common_flags */
	ck_assert(find(ev.data, ev.len, 4, &sw)); /* FtraceEvent.sched_switch */
	ck_assert(find(sw.data, sw.len, 1, &f));
	ck_assert_uint_eq(f.len, 4);
	ck_assert_mem_eq(f.data, "bash", 4);
	ck_assert(find(sw.data, sw.len, 2, &f));
	ck_assert_uint_eq(f.v, 1234);
	ck_assert(find(sw.data, sw.len, 3, &f));
	ck_assert_uint_eq(f.v, 120);
	ck_assert(find(sw.data, sw.len, 4, &f));
	ck_assert_uint_eq(f.v, UINT64_MAX); /* int64 -1 */
	ck_assert(find(sw.data, sw.len, 5, &f));
	ck_assert_uint_eq(f.len, 9);
	ck_assert_mem_eq(f.data, "swapper/1", 9);
	ck_assert(find(sw.data, sw.len, 6, &f));
	ck_assert_uint_eq(f.v, 0);
	ck_assert(find(sw.data, sw.len, 7, &f));
	ck_assert_uint_eq(f.v, UINT64_MAX - 4); /* int32 -5, sign-extended to ten bytes */
	ck_assert_uint_eq(e->w.stats.typed, 1);
	ck_assert_uint_eq(e->w.stats.dropped_fields, 0);
	free(e);
}
END_TEST

/* sys_enter: repeated args; sched_process_exit: typed without group_dead
 * by default, generic with --lossless. */
START_TEST(typed_repeated_and_dropped)
{
	pf_fixture fx;
	pf_env *e = env_new(1, 1024, 0);
	uint8_t rec[64] = { 443 & 0xff, 443 >> 8 };
	tb_pf_record r;
	tb_error err;
	pbf pkt, b, ev, m, f;
	pbr rd;
	uint64_t want = 100;
	int i;
	fixture(&fx);
	put64(rec + 8, 257);
	for (i = 0; i < 6; i++)
		put64(rec + 16 + 8 * i, 100 + (uint64_t)i);
	memset(&r, 0, sizeof(r));
	r.format = fx.se;
	r.data = rec;
	r.len = 64;
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	memset(rec, 0, sizeof(rec));
	rec[0] = 369 & 0xff;
	rec[1] = 369 >> 8;
	memcpy(rec + 8, "gone", 4);
	put32(rec + 24, 77);
	rec[32] = 1;
	r.format = fx.ex;
	r.len = 40;
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	ck_assert(packet_at(&e->out, 0, &pkt));
	ck_assert(find(pkt.data, pkt.len, 1, &b));
	ck_assert_uint_eq(count(b.data, b.len, 2), 2);
	ck_assert(find(b.data, b.len, 2, &ev));
	ck_assert(find(ev.data, ev.len, 329, &m)); /* FtraceEvent.sys_enter */
	ck_assert(find(m.data, m.len, 1, &f));
	ck_assert_uint_eq(f.v, 257);
	ck_assert_uint_eq(count(m.data, m.len, 2), 6);
	rd.p = m.data;
	rd.end = m.data + m.len;
	while (rd_field(&rd, &f) == 1)
		if (f.field == 2)
			ck_assert_uint_eq(f.v, want++);
	ck_assert_uint_eq(want, 106);
	ck_assert_str_eq(tb_pf_typed_name(&e->w, fx.ex), "sched_process_exit");
	ck_assert_uint_eq(e->w.stats.dropped_fields, 1);
	free(e);

	e = env_new(1, 1024, TB_PF_LOSSLESS);
	ck_assert_ptr_null(tb_pf_typed_name(&e->w, fx.ex));
	ck_assert_str_eq(tb_pf_typed_name(&e->w, fx.sw), "sched_switch");
	free(e);
	e = env_new(1, 1024, TB_PF_ALL_GENERIC);
	ck_assert_ptr_null(tb_pf_typed_name(&e->w, fx.sw));
	free(e);
}
END_TEST

/* A generic event: every field by name with its typed value. */
START_TEST(generic_fields)
{
	pf_fixture fx;
	pf_env *e = env_new(1, 1024, 0);
	uint8_t rec[40] = { 900 & 0xff, 900 >> 8 };
	tb_pf_record r;
	tb_error err;
	pbf pkt, b, ev, g, f, v;
	pbr rd;
	int nfield = 0;
	fixture(&fx);
	rec[8] = 0xfe;          /* delta = -2 */
	rec[10] = 1;            /* vals = {1, 0x203} */
	rec[12] = 3;
	rec[13] = 2;
	put32(rec + 16, 32u | 5u << 16); /* name: 5 bytes at 32 */
	memcpy(rec + 32, "hi!\0x", 5);
	put64(rec + 24, 0x8000000000000001ull);
	memset(&r, 0, sizeof(r));
	r.format = fx.mine;
	r.data = rec;
	r.len = 37;
	r.pid = -1;
	ck_assert_ptr_null(tb_pf_typed_name(&e->w, fx.mine));
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	ck_assert(packet_at(&e->out, 0, &pkt));
	ck_assert(find(pkt.data, pkt.len, 1, &b));
	ck_assert(find(b.data, b.len, 2, &ev));
	ck_assert(find(ev.data, ev.len, 2, &f));
	ck_assert_uint_eq(f.v, 0xffffffffu); /* pid as uint32 */
	ck_assert(!find(ev.data, ev.len, 5, &f)); /* common_flags 0: absent */
	ck_assert(find(ev.data, ev.len, 327, &g)); /* FtraceEvent.generic */
	ck_assert(find(g.data, g.len, 1, &f));
	ck_assert_uint_eq(f.len, 8);
	ck_assert_mem_eq(f.data, "my_event", 8);
	ck_assert_uint_eq(count(g.data, g.len, 2), 5); /* delta, vals[0], vals[1], name, big */
	rd.p = g.data;
	rd.end = g.data + g.len;
	while (rd_field(&rd, &f) == 1) {
		if (f.field != 2)
			continue;
		ck_assert(find(f.data, f.len, 1, &v));
		switch (nfield++) {
		case 0:
			ck_assert_mem_eq(v.data, "delta", 5);
			ck_assert(find(f.data, f.len, 4, &v));
			ck_assert_uint_eq(v.v, (uint64_t)-2);
			break;
		case 1:
			ck_assert_uint_eq(v.len, 7);
			ck_assert_mem_eq(v.data, "vals[0]", 7);
			ck_assert(find(f.data, f.len, 5, &v));
			ck_assert_uint_eq(v.v, 1);
			break;
		case 2:
			ck_assert_mem_eq(v.data, "vals[1]", 7);
			ck_assert(find(f.data, f.len, 5, &v));
			ck_assert_uint_eq(v.v, 0x203);
			break;
		case 3:
			ck_assert_mem_eq(v.data, "name", 4);
			ck_assert(find(f.data, f.len, 3, &v));
			ck_assert_uint_eq(v.len, 3);
			ck_assert_mem_eq(v.data, "hi!", 3);
			break;
		default:
			ck_assert_mem_eq(v.data, "big", 3);
			ck_assert(find(f.data, f.len, 5, &v));
			ck_assert_uint_eq(v.v, 0x8000000000000001ull);
			break;
		}
	}
	ck_assert_int_eq(nfield, 5);
	/* a record too short for its dynamic field: the field has no value */
	e->out.len = 0;
	r.len = 24;
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	ck_assert_uint_ge(e->w.stats.bad_fields, 2); /* name and big */
	free(e);
}
END_TEST

/* Bundles: per CPU, split when full, lost_events after a drop, an event
 * bigger than a bundle in a bundle of its own. */
START_TEST(bundles_and_losses)
{
	pf_fixture fx;
	pf_env *e = env_new(2, 256, 0);
	uint8_t rec[64];
	tb_pf_record r;
	tb_error err;
	pbf pkt, b, f;
	size_t i, events = 0, lost = 0, cpu1 = 0;
	fixture(&fx);
	sched_switch_rec(rec, 10, 20);
	memset(&r, 0, sizeof(r));
	r.format = fx.sw;
	r.data = rec;
	r.len = 64;
	for (i = 0; i < 40; i++) {
		r.cpu = (uint32_t)(i % 3);  /* cpu 2 shares slot 0 with cpu 0 */
		r.ts = 1000 + i;
		r.missed = i == 20 ? 5 : 0;
		ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	}
	ck_assert_int_eq(tb_pf_lost(&e->w, 0, 1, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	for (i = 0; packet_at(&e->out, i, &pkt); i++) {
		ck_assert(find(pkt.data, pkt.len, 1, &b));
		ck_assert_uint_le(b.len, 256);
		ck_assert(find(b.data, b.len, 1, &f));
		events += count(b.data, b.len, 2);
		cpu1 += f.v == 1 ? count(b.data, b.len, 2) : 0;
		if (find(b.data, b.len, 3, &f)) {
			ck_assert_uint_eq(f.v, 1);
			lost++;
		}
	}
	ck_assert_uint_eq(events, 40);
	ck_assert_uint_eq(cpu1, 13);
	ck_assert_uint_eq(lost, 2); /* after the drop on cpu 2, and the empty one on cpu 1 */
	ck_assert_uint_eq(e->w.stats.lost_bundles, 2);
	ck_assert_uint_eq(e->w.stats.packets, i);
	free(e);

	/* an event larger than the bundle, and one larger than the scratch */
	e = env_new(1, 256, 0);
	{
		static uint8_t big[1200];
		memset(big, 0, sizeof(big));
		big[0] = 900 & 0xff;
		big[1] = 900 >> 8;
		put32(big + 16, 40u | 1100u << 16);
		memset(big + 40, 'x', 1100);
		r.format = fx.mine;
		r.data = big;
		r.len = sizeof(big);
		r.missed = 0;
		ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
		ck_assert(packet_at(&e->out, 0, &pkt)); /* written at once */
		ck_assert(find(pkt.data, pkt.len, 1, &b));
		ck_assert_uint_gt(b.len, 1100);
		ck_assert_uint_eq(count(b.data, b.len, 2), 1);
		/* text with no NUL up to the end: the whole text */
		e->cfg.scratch_size = 100;
		tb_pf_set_scratch(&e->w, e->scratch, 100);
		ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_ERR_NO_SPACE);
		ck_assert_uint_gt(e->w.need, 1100);
		ck_assert_uint_eq(e->w.stats.events, 1);
		tb_pf_set_scratch(&e->w, e->scratch, sizeof(e->scratch));
		ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
		ck_assert_uint_eq(e->w.stats.events, 2);
	}
	free(e);
}
END_TEST

START_TEST(threads_and_output_errors)
{
	pf_fixture fx;
	pf_env *e = env_new(1, 512, 0);
	static const char text[] = "1 systemd\n42 kworker/0:1\n1000 a name with spaces\n";
	tb_cmdline v[4];
	tb_cmdlines c = { v, 0, 4 };
	uint8_t rec[64];
	tb_pf_record r;
	tb_error err;
	pbf pkt, t, th, f;
	pbr rd;
	size_t n = 0;
	fixture(&fx);
	ck_assert_int_eq(tb_cmdlines_parse(&c, text, strlen(text), &err), TB_OK);
	ck_assert_int_eq(tb_pf_threads(&e->w, &c, &err), TB_OK);
	ck_assert(packet_at(&e->out, 0, &pkt));
	ck_assert(find(pkt.data, pkt.len, 2, &t)); /* process_tree */
	rd.p = t.data;
	rd.end = t.data + t.len;
	while (rd_field(&rd, &th) == 1) {
		ck_assert_uint_eq(th.field, 2); /* threads */
		ck_assert(find(th.data, th.len, 1, &f));
		ck_assert_uint_eq(f.v, (uint64_t)v[n].pid);
		ck_assert(find(th.data, th.len, 2, &f));
		ck_assert_uint_eq(f.len, v[n].comm_len);
		ck_assert_mem_eq(f.data, v[n].comm, f.len);
		n++;
	}
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(e->w.stats.threads, 3);
	/* the callback fails: the error comes back, and stays */
	sched_switch_rec(rec, 1, 2);
	memset(&r, 0, sizeof(r));
	r.format = fx.sw;
	r.data = rec;
	r.len = 64;
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	e->out.fail_at = e->out.calls + 1;
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_ERR_ARG);
	free(e);
	/* bad configurations */
	{
		tb_pf_writer *w = malloc(sizeof(*w));
		tb_pf_config cfg;
		uint8_t mem[512];
		memset(&cfg, 0, sizeof(cfg));
		ck_assert_int_eq(tb_pf_init(w, &cfg, &err), TB_ERR_ARG);
		cfg.write = sink_write;
		cfg.bundles = mem;
		cfg.scratch = mem;
		cfg.nslots = 1;
		cfg.bundle_size = TB_PF_MIN_BUNDLE - 1;
		ck_assert_int_eq(tb_pf_init(w, &cfg, &err), TB_ERR_ARG);
		cfg.bundle_size = TB_PF_MIN_BUNDLE;
		cfg.nslots = TB_PF_MAX_SLOTS + 1;
		ck_assert_int_eq(tb_pf_init(w, &cfg, &err), TB_ERR_ARG);
		cfg.nslots = 1;
		ck_assert_int_eq(tb_pf_init(w, &cfg, &err), TB_OK);
		free(w);
	}
}
END_TEST

/* Texts that are not UTF-8 stay lossless; the clock names Perfetto knows. */
START_TEST(utf8_and_clocks)
{
	static const char text[] =
		"1 caf\xc3\xa9\n"           /* 2-byte: kept */
		"2 \xe2\x82\xac\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\n" /* 3, 4, U+10FFFF: kept */
		"3 a\xed\xa0\x80z\n"       /* a surrogate */
		"4 \xe0\x80\x80\n"         /* overlong */
		"5 \xf4\x90\x80\x80\n"    /* past U+10FFFF */
		"6 x\xc3\n"                 /* cut short */
		"7 \xff\xed\x9f\xbf\n";   /* 0xff, then U+D7FF (kept) */
	static const char *const want[] = {
		"caf\xc3\xa9", "\xe2\x82\xac\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
		"a\\xed\\xa0\\x80z", "\\xe0\\x80\\x80", "\\xf4\\x90\\x80\\x80", "x\\xc3",
		"\\xff\xed\x9f\xbf",
	};
	static const struct { const char *name; uint64_t kind; } clocks[] = {
		{ "local", 3 }, { "global", 2 }, { "mono_raw", 4 }, { "boot", 0 }, { "x86-tsc", 0 },
	};
	pf_fixture fx;
	pf_env *e = env_new(1, 1024, 0);
	tb_cmdline v[8];
	tb_cmdlines c = { v, 0, 8 };
	uint8_t rec[64];
	tb_pf_record r;
	tb_error err;
	pbf pkt, t, th, f, b, ev;
	pbr rd;
	size_t n = 0, i;
	fixture(&fx);
	ck_assert_int_eq(tb_cmdlines_parse(&c, text, strlen(text), &err), TB_OK);
	ck_assert_uint_eq(c.n, 7);
	ck_assert_int_eq(tb_pf_threads(&e->w, &c, &err), TB_OK);
	ck_assert(packet_at(&e->out, 0, &pkt));
	ck_assert(find(pkt.data, pkt.len, 2, &t));
	rd.p = t.data;
	rd.end = t.data + t.len;
	while (rd_field(&rd, &th) == 1) {
		ck_assert(find(th.data, th.len, 2, &f));
		ck_assert_uint_eq(f.len, strlen(want[n]));
		ck_assert_mem_eq(f.data, want[n], f.len);
		n++;
	}
	ck_assert_uint_eq(n, 7);
	/* a sched_switch whose comm is not UTF-8 goes out generic, bytes kept */
	e->out.len = 0;
	sched_switch_rec(rec, 1, 2);
	rec[8] = 0xc3;
	rec[9] = 0x28;
	memset(&r, 0, sizeof(r));
	r.format = fx.sw;
	r.data = rec;
	r.len = 64;
	ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	ck_assert_uint_eq(e->w.stats.generic, 1);
	ck_assert(packet_at(&e->out, 0, &pkt));
	ck_assert(find(pkt.data, pkt.len, 1, &b));
	ck_assert(find(b.data, b.len, 2, &ev));
	ck_assert(find(ev.data, ev.len, 327, &f));
	ck_assert_uint_eq(count(f.data, f.len, 2), 4 + 6); /* prev_comm[0..3] as bytes, 6 others */
	ck_assert(find(f.data, f.len, 2, &t)); /* the first Field */
	ck_assert(find(t.data, t.len, 1, &th));
	ck_assert_uint_eq(th.len, 12);
	ck_assert_mem_eq(th.data, "prev_comm[0]", 12);
	ck_assert(find(t.data, t.len, 5, &th));
	ck_assert_uint_eq(th.v, 0xc3);
	free(e);
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		e = env_new(1, 1024, 0);
		e->cfg.clock = clocks[i].name;
		e->cfg.clock_len = strlen(clocks[i].name);
		ck_assert_int_eq(tb_pf_init(&e->w, &e->cfg, &err), TB_OK);
		sched_switch_rec(rec, 1, 2);
		r.ts = 777;
		ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_OK);
		ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
		ck_assert(packet_at(&e->out, 0, &pkt));
		ck_assert(find(pkt.data, pkt.len, 1, &b));
		if (clocks[i].kind) {
			ck_assert(find(b.data, b.len, 5, &f));
			ck_assert_uint_eq(f.v, clocks[i].kind);
			ck_assert(find(b.data, b.len, 6, &f));
			ck_assert_uint_eq(f.v, 777);
		} else {
			ck_assert(!find(b.data, b.len, 5, &f));
			ck_assert(!find(b.data, b.len, 6, &f));
		}
		free(e);
	}
}
END_TEST

/* trace-cmd's uname as Perfetto's Utsname (the node name is not kept). */
START_TEST(system_info)
{
	static const struct { const char *uname, *sys, *vers, *rel, *mach; } cases[] = {
		{ "Linux vm 6.18.44-fc-v769 x86_64", "Linux", NULL, "6.18.44-fc-v769", "x86_64" },
		{ "Linux host 6.1.0-9 #1 SMP PREEMPT_DYNAMIC Debian 6.1.27-1 aarch64\n", "Linux",
		  "#1 SMP PREEMPT_DYNAMIC Debian 6.1.27-1", "6.1.0-9", "aarch64" },
		{ "Linux", "Linux", NULL, NULL, NULL },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pf_env *e = env_new(1, 256, 0);
		tb_error err;
		pbf pkt, si, u, f;
		const char *want[5];
		uint32_t n;
		ck_assert_int_eq(tb_pf_system_info(&e->w, cases[i].uname, strlen(cases[i].uname),
						   &err), TB_OK);
		ck_assert(packet_at(&e->out, 0, &pkt));
		ck_assert(find(pkt.data, pkt.len, 45, &si));
		ck_assert(find(si.data, si.len, 1, &u));
		want[1] = cases[i].sys;
		want[2] = cases[i].vers;
		want[3] = cases[i].rel;
		want[4] = cases[i].mach;
		for (n = 1; n <= 4; n++) {
			if (!want[n]) {
				ck_assert(!find(u.data, u.len, n, &f));
				continue;
			}
			ck_assert(find(u.data, u.len, n, &f));
			ck_assert_uint_eq(f.len, strlen(want[n]));
			ck_assert_mem_eq(f.data, want[n], f.len);
		}
		ck_assert_int_eq(tb_pf_system_info(&e->w, "", 0, &err), TB_OK);
		ck_assert(!packet_at(&e->out, 1, &pkt));
		e->cfg.scratch_size = 64;
		tb_pf_set_scratch(&e->w, e->scratch, 64);
		ck_assert_int_eq(tb_pf_system_info(&e->w, cases[i].uname, strlen(cases[i].uname),
						   &err), TB_ERR_NO_SPACE);
		ck_assert_uint_gt(e->w.need, 64);
		free(e);
	}
}
END_TEST

/* The output failing while bundles are flushed on the way. */
START_TEST(output_errors_midway)
{
	pf_fixture fx;
	uint8_t rec[64];
	tb_pf_record r;
	tb_error err;
	int at;
	fixture(&fx);
	sched_switch_rec(rec, 1, 2);
	memset(&r, 0, sizeof(r));
	r.format = fx.sw;
	r.data = rec;
	r.len = 64;
	for (at = 1; at <= 3; at++) {
		pf_env *e = env_new(1, 256, 0);
		int i, failed = 0;
		e->out.fail_at = at;
		for (i = 0; i < 12 && !failed; i++) {
			r.cpu = (uint32_t)(i / 4);      /* a CPU change flushes */
			r.missed = i == 2;             /* a loss flushes */
			if (tb_pf_add(&e->w, &r, &err) != TB_OK)
				failed = 1;
		}
		ck_assert_int_eq(failed, 1);
		ck_assert_int_eq(err.status, TB_ERR_ARG);
		ck_assert_int_eq(tb_pf_lost(&e->w, 0, 0, &err), TB_ERR_ARG);
		ck_assert_int_eq(tb_pf_threads(&e->w, NULL, &err), TB_ERR_ARG);
		ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_ERR_ARG);
		free(e);
	}
	{
		pf_env *e = env_new(1, 256, 0);
		ck_assert_int_eq(tb_pf_add(&e->w, NULL, &err), TB_ERR_ARG);
		r.data = NULL;
		ck_assert_int_eq(tb_pf_add(&e->w, &r, &err), TB_ERR_ARG);
		free(e);
	}
}
END_TEST

/* A session's events: records as tb_pf_add, a damaged page as a loss. */
START_TEST(session_events)
{
	pf_fixture fx;
	pf_env *e = env_new(2, 1024, 0);
	uint8_t rec[64];
	tb_session_event ev;
	tb_error err;
	pbf pkt, b, f, x;
	size_t i, lost = 0, events = 0;
	fixture(&fx);
	sched_switch_rec(rec, 7, 8);
	memset(&ev, 0, sizeof(ev));
	ev.kind = TB_SEV_EVENT;
	ev.cpu = 1;
	ev.ts = 99;
	ev.pid = 7;
	ev.id = 372;
	ev.has_id = 1;
	ev.format = fx.sw;
	ev.data = rec;
	ev.len = 64;
	ck_assert_int_eq(tb_pf_session_event(&e->w, &ev, &err), TB_OK);
	ev.kind = TB_SEV_DAMAGED;
	ck_assert_int_eq(tb_pf_session_event(&e->w, &ev, &err), TB_OK);
	ev.kind = TB_SEV_EVENT;
	ev.ts = 100;
	ck_assert_int_eq(tb_pf_session_event(&e->w, &ev, &err), TB_OK);
	ev.format = NULL; /* an id without a format */
	ev.len = 3;
	ck_assert_int_eq(tb_pf_session_event(&e->w, &ev, &err), TB_OK);
	ck_assert_int_eq(tb_pf_session_event(&e->w, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_finish(&e->w, &err), TB_OK);
	for (i = 0; packet_at(&e->out, i, &pkt); i++) {
		ck_assert(find(pkt.data, pkt.len, 1, &b));
		events += count(b.data, b.len, 2);
		if (find(b.data, b.len, 3, &f)) {
			lost++;
			ck_assert_uint_eq(count(b.data, b.len, 2), 2); /* the two after the damage */
			ck_assert(find(b.data, b.len, 2, &f));
			ck_assert(find(f.data, f.len, 1, &x));
			ck_assert_uint_eq(x.v, 100);
		}
	}
	ck_assert_uint_eq(i, 2);
	ck_assert_uint_eq(events, 3);
	ck_assert_uint_eq(lost, 1);
	ck_assert_uint_eq(e->w.stats.unknown, 1);
	free(e);
}
END_TEST

/* ---- encode + place (the two halves of tb_pf_add) ---- */

typedef struct grow_sink {
	uint8_t *buf;
	size_t len, cap;
} grow_sink;

static tb_status grow_write(void *ctx, const void *p, size_t n)
{
	grow_sink *g = ctx;
	if (n > g->cap - g->len) {
		size_t cap = g->cap ? g->cap : 1 << 16;
		uint8_t *nb;
		while (cap - g->len < n)
			cap *= 2;
		nb = realloc(g->buf, cap);
		ck_assert_ptr_nonnull(nb);
		g->buf = nb;
		g->cap = cap;
	}
	memcpy(g->buf + g->len, p, n);
	g->len += n;
	return TB_OK;
}

static tb_status never_write(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	ck_abort_msg("an encode-only writer wrote");
	return TB_ERR_ARG;
}

typedef struct pf_side {
	tb_pf_writer w;
	tb_pf_config cfg;
	grow_sink out;
	uint8_t *bundles, *scratch;
	size_t scratch_size;
} pf_side;

static void side_init(pf_side *p, size_t nslots, unsigned flags, int encode_only)
{
	tb_error err;
	memset(&p->out, 0, sizeof(p->out));
	p->scratch_size = 64; /* small: the NO_SPACE path runs on real records */
	p->scratch = malloc(p->scratch_size);
	p->bundles = malloc(nslots * TB_PF_DEFAULT_BUNDLE);
	ck_assert(p->scratch && p->bundles);
	memset(&p->cfg, 0, sizeof(p->cfg));
	p->cfg.write = encode_only ? never_write : grow_write;
	p->cfg.ctx = &p->out;
	p->cfg.bundles = p->bundles;
	p->cfg.nslots = nslots;
	p->cfg.bundle_size = TB_PF_DEFAULT_BUNDLE;
	p->cfg.scratch = p->scratch;
	p->cfg.scratch_size = p->scratch_size;
	p->cfg.clock = "local";
	p->cfg.clock_len = 5;
	p->cfg.flags = flags;
	ck_assert_int_eq(tb_pf_init(&p->w, &p->cfg, &err), TB_OK);
}

/* TB_OK, after growing the scratch as often as the writer asks. */
static tb_status side_grow(pf_side *p, tb_status st)
{
	if (st != TB_ERR_NO_SPACE)
		return st;
	ck_assert_uint_gt(p->w.need, p->scratch_size);
	free(p->scratch);
	p->scratch_size = p->w.need;
	p->scratch = malloc(p->scratch_size);
	ck_assert_ptr_nonnull(p->scratch);
	tb_pf_set_scratch(&p->w, p->scratch, p->scratch_size);
	return TB_NEED_MORE;
}

static void side_free(pf_side *p)
{
	free(p->out.buf);
	free(p->bundles);
	free(p->scratch);
}

/* A session over a capture in memory, damaged pages given in place (one
 * at a time: the arena is this function's). */
static tb_session *open_skipping(const uint8_t *dat, size_t len)
{
	static uint8_t arena_mem[64 << 20];
	static tb_arena a;
	tb_session_source src;
	tb_session_options opt;
	tb_session *s;
	tb_mem m;
	tb_error err;
	tb_arena_init(&a, arena_mem, sizeof(arena_mem));
	m = tb_arena_mem(&a);
	memset(&src, 0, sizeof(src));
	src.dat = dat;
	src.dat_len = len;
	memset(&opt, 0, sizeof(opt));
	opt.flags = TB_SESSION_SKIP_DAMAGED;
	ck_assert_int_eq(tb_session_open(&s, &src, &opt, &m, &err), TB_OK);
	return s;
}

/*
 * Every event of a capture through tb_pf_session_event into one writer,
 * and through tb_pf_encode on a writer of its own + tb_pf_place into
 * another: the same bytes, the same stats.  Returns the events seen.
 */
static uint64_t encode_place_same(const uint8_t *dat, size_t len, unsigned flags)
{
	tb_session *s;
	tb_error err;
	pf_side *one = malloc(sizeof(*one)), *two = malloc(sizeof(*two)),
		*enc = malloc(sizeof(*enc));
	uint64_t n = 0, losses = 0;
	tb_status st;
	ck_assert(one && two && enc);
	s = open_skipping(dat, len);
	side_init(one, 4, flags, 0);
	side_init(two, 4, flags, 0);
	side_init(enc, 1, flags, 1);
	for (;;) {
		tb_session_event ev;
		tb_pf_record r;
		tb_pf_encoded e;
		st = tb_session_next(s, &ev, &err);
		if (st == TB_END)
			break;
		if (st != TB_OK)
			continue;
		do
			st = side_grow(one, tb_pf_session_event(&one->w, &ev, &err));
		while (st == TB_NEED_MORE);
		ck_assert_int_eq(st, TB_OK);
		if (ev.kind == TB_SEV_DAMAGED) {
			ck_assert_int_eq(tb_pf_session_record(&ev, &r, &err), TB_ERR_ARG);
			ck_assert_int_eq(tb_pf_lost(&two->w, ev.buffer, ev.cpu, &err), TB_OK);
			losses++;
			continue;
		}
		ck_assert_int_eq(tb_pf_session_record(&ev, &r, &err), TB_OK);
		do
			st = side_grow(enc, tb_pf_encode(&enc->w, &r, &e, &err));
		while (st == TB_NEED_MORE);
		ck_assert_int_eq(st, TB_OK);
		ck_assert_ptr_eq(e.data, enc->scratch);
		ck_assert_uint_eq(e.cpu, ev.cpu);
		ck_assert_uint_eq(e.ts, ev.ts);
		ck_assert_int_eq(tb_pf_place(&two->w, &e, &err), TB_OK);
		n++;
	}
	ck_assert_int_eq(tb_pf_finish(&one->w, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&two->w, &err), TB_OK);
	ck_assert_uint_eq(one->w.stats.events, n);
	ck_assert_uint_gt(one->out.len, n * 8);
	ck_assert_uint_eq(two->out.len, one->out.len);
	ck_assert(memcmp(two->out.buf, one->out.buf, one->out.len) == 0);
	ck_assert(memcmp(&two->w.stats, &one->w.stats, sizeof(one->w.stats)) == 0);
	/* the encoder's stats and output untouched */
	ck_assert_uint_eq(enc->w.stats.events, 0);
	ck_assert_uint_eq(enc->w.stats.typed + enc->w.stats.generic + enc->w.stats.bad_fields, 0);
	ck_assert_uint_eq(enc->w.stats.packets, 0);
	ck_assert_uint_eq(enc->out.len, 0);
	if (losses)
		ck_assert_uint_gt(one->w.stats.lost_bundles, 0);
	tb_session_close(s);
	side_free(one);
	side_free(two);
	side_free(enc);
	free(one);
	free(two);
	free(enc);
	return n;
}

START_TEST(encode_place_is_add)
{
	static uint8_t file[1 << 20];
	static const unsigned flags[] = { 0, TB_PF_LOSSLESS, TB_PF_ALL_GENERIC };
	size_t len = dw_clock_back_file(file, sizeof(file)), i;
	const char *v7 = tb_test_path("../shared/samples/sched4k.v7.dat");
	ck_assert_uint_gt(len, 0);
	for (i = 0; i < 3; i++)
		ck_assert_uint_ge(encode_place_same(file, len, flags[i]), 240);
	if (tb_test_exists(v7)) {
		size_t dlen;
		uint8_t *d = tb_test_read_file(v7, &dlen);
		ck_assert_ptr_nonnull(d);
		for (i = 0; i < 3; i++)
			ck_assert_uint_eq(encode_place_same(d, dlen, flags[i]), 63844);
		/* damaged pages: losses in place (the commit word of some pages far past the page) */
		ck_assert_uint_gt(tb_test_damage_cpu1_pages(d, dlen), 0);
		ck_assert_uint_lt(encode_place_same(d, dlen, 0), 63844);
		free(d);
	}
}
END_TEST

/* *a += b, field by field. */
static void stats_sum(tb_pf_stats *a, const tb_pf_stats *b)
{
	a->events += b->events;
	a->typed += b->typed;
	a->generic += b->generic;
	a->unknown += b->unknown;
	a->dropped_fields += b->dropped_fields;
	a->bad_fields += b->bad_fields;
	a->packets += b->packets;
	a->bytes += b->bytes;
	a->lost_bundles += b->lost_bundles;
	a->threads += b->threads;
}

/*
 * A trace cut at its `cuts` event times: one writer that flushes before
 * the first event at or past each time, against one writer per run
 * between cuts (its clock pair set to the first event's time, flushed at
 * the run's end), their outputs one after the other.  The same bytes and,
 * summed, the same stats: what convert --to perfetto --jobs relies on.
 * Returns the packets of the cut trace.
 */
static uint64_t flush_runs_same(const uint8_t *dat, size_t len, const uint64_t *cuts,
				size_t ncuts)
{
	tb_session *s;
	tb_error err;
	pf_side *one = malloc(sizeof(*one)), *run = malloc(sizeof(*run));
	grow_sink joined = { NULL, 0, 0 };
	tb_pf_stats sum;
	uint64_t first = 0, packets;
	size_t next = 0, runs = 0, i;
	int have_first = 0, started = 0;
	tb_status st;
	ck_assert(one && run);
	memset(&sum, 0, sizeof(sum));
	s = open_skipping(dat, len);
	side_init(one, 4, 0, 0);
	for (;;) {
		tb_session_event ev;
		size_t from = next;
		st = tb_session_next(s, &ev, &err);
		if (st == TB_END)
			break;
		if (st != TB_OK)
			continue;
		if (!have_first && ev.kind == TB_SEV_EVENT) {
			first = ev.ts;
			have_first = 1;
		}
		while (next < ncuts && ev.ts >= cuts[next])
			next++;
		if (next != from) {
			ck_assert_int_eq(tb_pf_flush(&one->w, &err), TB_OK);
			if (started) { /* the run ends: its writer flushed, its bytes kept */
				ck_assert_int_eq(tb_pf_flush(&run->w, &err), TB_OK);
				grow_write(&joined, run->out.buf, run->out.len);
				stats_sum(&sum, &run->w.stats);
				side_free(run);
				started = 0;
			}
		}
		if (!started) {
			side_init(run, 4, 0, 0);
			if (have_first)
				tb_pf_set_clock(&run->w, first);
			started = 1;
			runs++;
		}
		do
			st = side_grow(one, tb_pf_session_event(&one->w, &ev, &err));
		while (st == TB_NEED_MORE);
		ck_assert_int_eq(st, TB_OK);
		do
			st = side_grow(run, tb_pf_session_event(&run->w, &ev, &err));
		while (st == TB_NEED_MORE);
		ck_assert_int_eq(st, TB_OK);
	}
	ck_assert_int_eq(tb_pf_finish(&one->w, &err), TB_OK);
	if (started) {
		ck_assert_int_eq(tb_pf_finish(&run->w, &err), TB_OK);
		grow_write(&joined, run->out.buf, run->out.len);
		stats_sum(&sum, &run->w.stats);
		side_free(run);
	}
	ck_assert_uint_eq(runs, ncuts + 1); /* every cut falls between events here */
	ck_assert_uint_eq(joined.len, one->out.len);
	ck_assert(memcmp(joined.buf, one->out.buf, one->out.len) == 0);
	ck_assert(memcmp(&sum, &one->w.stats, sizeof(sum)) == 0);
	packets = one->w.stats.packets;
	/* a flush with nothing open writes nothing, and the writer goes on */
	i = one->out.len;
	ck_assert_int_eq(tb_pf_flush(&one->w, &err), TB_OK);
	ck_assert_uint_eq(one->out.len, i);
	ck_assert_int_eq(tb_pf_flush(NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_finish(NULL, &err), TB_ERR_ARG);
	tb_pf_set_clock(NULL, 1); /* nothing to set */
	tb_session_close(s);
	side_free(one);
	free(joined.buf);
	free(one);
	free(run);
	return packets;
}

START_TEST(flush_cuts_runs)
{
	const char *v7 = tb_test_path("../shared/samples/sched4k.v7.dat");
	static const uint64_t none[1] = { 0 };
	/* times inside sched4k.v7.dat (its events run from 192.83 s to 193.38 s) */
	static const uint64_t cuts[] = { 192900000000ull, 193000000000ull,
					 193100000000ull, 193200000000ull };
	size_t dlen;
	uint8_t *d;
	uint64_t whole, cut;
	if (!tb_test_exists(v7))
		return;
	d = tb_test_read_file(v7, &dlen);
	ck_assert_ptr_nonnull(d);
	whole = flush_runs_same(d, dlen, none, 0);
	ck_assert_uint_eq(whole, 275); /* the CLI's -v: 277, with system info and threads */
	cut = flush_runs_same(d, dlen, cuts, 4);
	/* each cut writes the open bundles early: here one packet more a cut */
	ck_assert_uint_eq(cut, whole + 4);
	free(d);
}
END_TEST

/* Every error of tb_pf_encode, tb_pf_place and tb_pf_session_record. */
START_TEST(encode_place_errors)
{
	pf_fixture fx;
	pf_env *e = env_new(1, 256, 0), *to = env_new(1, 256, 0);
	uint8_t rec[64], small[16];
	tb_pf_record r;
	tb_pf_encoded enc, bad;
	tb_session_event ev;
	tb_error err;
	fixture(&fx);
	sched_switch_rec(rec, 3, 4);
	memset(&r, 0, sizeof(r));
	r.format = fx.sw;
	r.data = rec;
	r.len = 64;
	r.cpu = 2;
	r.ts = 77;
	r.missed = 5;
	/* NULL arguments */
	ck_assert_int_eq(tb_pf_encode(NULL, &r, &enc, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_encode(&e->w, &r, NULL, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_encode(&e->w, NULL, &enc, &err), TB_ERR_ARG);
	r.data = NULL;
	ck_assert_int_eq(tb_pf_encode(&e->w, &r, &enc, &err), TB_ERR_ARG);
	ck_assert_int_eq(err.status, TB_ERR_ARG);
	r.data = rec;
	/* a scratch too small: NO_SPACE, need said, nothing touched */
	tb_pf_set_scratch(&e->w, small, sizeof(small));
	ck_assert_int_eq(tb_pf_encode(&e->w, &r, &enc, &err), TB_ERR_NO_SPACE);
	ck_assert_uint_gt(e->w.need, sizeof(small));
	ck_assert_uint_le(e->w.need, sizeof(e->scratch));
	tb_pf_set_scratch(&e->w, e->scratch, e->w.need); /* exactly what it said */
	ck_assert_int_eq(tb_pf_encode(&e->w, &r, &enc, &err), TB_OK);
	ck_assert_ptr_eq(enc.data, e->scratch);
	ck_assert_uint_eq(enc.len, e->w.need);
	ck_assert_uint_eq(enc.kind, TB_PF_ENC_TYPED);
	ck_assert_uint_eq(enc.cpu, 2);
	ck_assert_uint_eq(enc.ts, 77);
	ck_assert_int_eq(enc.missed, 5);
	ck_assert_uint_eq(enc.bad_fields, 0);
	ck_assert_uint_eq(e->w.stats.events, 0);
	ck_assert_int_eq(e->out.calls, 0);
	/* an unknown record: its kind */
	tb_pf_set_scratch(&e->w, e->scratch, sizeof(e->scratch));
	r.format = NULL;
	r.id = 9;
	r.len = 3;
	{
		tb_pf_encoded u;
		ck_assert_int_eq(tb_pf_encode(&e->w, &r, &u, &err), TB_OK);
		ck_assert_uint_eq(u.kind, TB_PF_ENC_UNKNOWN);
	}
	r.format = fx.sw;
	r.len = 64;
	ck_assert_int_eq(tb_pf_encode(&e->w, &r, &enc, &err), TB_OK);
	/* place: bad arguments change nothing */
	ck_assert_int_eq(tb_pf_place(NULL, &enc, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_place(&to->w, NULL, &err), TB_ERR_ARG);
	bad = enc;
	bad.data = NULL;
	ck_assert_int_eq(tb_pf_place(&to->w, &bad, &err), TB_ERR_ARG);
	bad = enc;
	bad.len = 0;
	ck_assert_int_eq(tb_pf_place(&to->w, &bad, &err), TB_ERR_ARG);
	bad.len = (size_t)TB_PF_MAX_EVENT + 1;
	ck_assert_int_eq(tb_pf_place(&to->w, &bad, &err), TB_ERR_ARG);
	bad = enc;
	bad.kind = 0;
	ck_assert_int_eq(tb_pf_place(&to->w, &bad, &err), TB_ERR_ARG);
	bad.kind = TB_PF_ENC_UNKNOWN + 1;
	ck_assert_int_eq(tb_pf_place(&to->w, &bad, &err), TB_ERR_ARG);
	ck_assert_uint_eq(to->w.stats.events, 0);
	ck_assert_int_eq(to->out.calls, 0);
	/* placed: counted, in a bundle saying lost_events */
	ck_assert_int_eq(tb_pf_place(&to->w, &enc, &err), TB_OK);
	ck_assert_uint_eq(to->w.stats.events, 1);
	ck_assert_uint_eq(to->w.stats.typed, 1);
	ck_assert_int_eq(tb_pf_finish(&to->w, &err), TB_OK);
	ck_assert_uint_eq(to->w.stats.lost_bundles, 1);
	ck_assert_uint_eq(to->w.stats.packets, 1);
	free(to);
	/* sticky output error: place and encode both refuse */
	to = env_new(1, 256, 0);
	to->out.fail_at = 1;
	ck_assert_int_eq(tb_pf_place(&to->w, &enc, &err), TB_OK); /* buffered */
	enc.cpu = 3;                                               /* a CPU change flushes */
	ck_assert_int_eq(tb_pf_place(&to->w, &enc, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_place(&to->w, &enc, &err), TB_ERR_ARG);
	ck_assert_int_eq(err.status, TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_encode(&to->w, &r, &enc, &err), TB_ERR_ARG);
	ck_assert_int_eq(to->out.calls, 1);
	/* tb_pf_session_record */
	memset(&ev, 0, sizeof(ev));
	ck_assert_int_eq(tb_pf_session_record(NULL, &r, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_session_record(&ev, NULL, &err), TB_ERR_ARG);
	ev.kind = TB_SEV_DAMAGED;
	ck_assert_int_eq(tb_pf_session_record(&ev, &r, &err), TB_ERR_ARG);
	ev.kind = TB_SEV_EVENT;
	ev.cpu = 6;
	ev.buffer = 1;
	ev.ts = 12;
	ev.pid = -3;
	ev.missed = -1;
	ev.id = 372;
	ev.format = fx.sw;
	ev.data = rec;
	ev.len = 64;
	ck_assert_int_eq(tb_pf_session_record(&ev, &r, &err), TB_OK);
	ck_assert_uint_eq(r.id, 0); /* has_id 0 */
	ck_assert(r.cpu == 6 && r.buffer == 1 && r.ts == 12 && r.pid == -3 && r.missed == -1);
	ck_assert(r.format == fx.sw && r.data == rec && r.len == 64);
	ev.has_id = 1;
	ck_assert_int_eq(tb_pf_session_record(&ev, &r, &err), TB_OK);
	ck_assert_uint_eq(r.id, 372);
	free(e);
	free(to);
}
END_TEST

/* The command: exit statuses, and every write checked. */
START_TEST(cli_convert)
{
	tb_test_run r;
	tb_test_cli("convert --to perfetto - tests/data/sched4k.v7zstd.dat | wc -c", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(atoi(r.out), 4471543); /* byte for byte what check.sh decodes */
	tb_test_run_free(&r);
	tb_test_cli("convert --to perfetto /dev/full tests/data/sched4k.v7zstd.dat", &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "No space left on device"));
	tb_test_run_free(&r);
	tb_test_cli("convert --to perfetto /dev/null tests/data/no-such.dat", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("convert --to perfetto /dev/null tests/data/SAMPLES.md", &r);
	ck_assert_int_eq(r.status, 1); /* not a trace.dat: malformed */
	tb_test_run_free(&r);
	tb_test_cli("convert --to parquetto x y", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("convert --to perfetto", &r);
	ck_assert_int_eq(r.status, 2);
	tb_test_run_free(&r);
	tb_test_cli("convert --to perfetto --lossless -v /dev/null tests/data/sched4k.v7zstd.dat", &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.err, "63844 events (7257 typed, 56587 generic, 0 unknown), "
				       "71 threads"));
	tb_test_run_free(&r);
}
END_TEST

/* ---- the generated table is the schema's ---- */

static const char *schema_path(void)
{
	static const char *const tries[] = {
		"../shared/perfetto/perfetto_trace.proto",
		"/work/shared/perfetto/perfetto_trace.proto",
	};
	const char *env = getenv("TB_PERFETTO_PROTO");
	size_t i;
	if (env && tb_test_exists(env))
		return env;
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		const char *p = tries[i][0] == '/' ? tries[i] : tb_test_path(tries[i]);
		if (tb_test_exists(p))
			return p;
	}
	return NULL;
}

START_TEST(table_matches_schema)
{
	const char *proto = schema_path();
	char cmd[1024];
	tb_test_run r;
	if (!proto) {
		fprintf(stderr, "test_protobuf: Perfetto's perfetto_trace.proto not found "
			"(set TB_PERFETTO_PROTO): table check skipped\n");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "python3 ci/gen-perfetto-fields.py '%s' | cmp - lib/perfetto_fields.h && echo same",
		 proto);
	tb_test_sh(cmd, &r);
	ck_assert_msg(r.status == 0, "lib/perfetto_fields.h differs from the schema's: %s%s",
		      r.out, r.err);
	ck_assert_str_eq(r.out, "same\n");
	tb_test_run_free(&r);
}
END_TEST

/* ---- the writer set up from a session, its memory from a tb_mem ---- */

/* A counting tb_mem that refuses every allocation after `left` more. */
typedef struct count_mem {
	size_t allocs, frees, bytes, left;
} count_mem;

static void *count_alloc(void *ctx, size_t n)
{
	count_mem *c = ctx;
	if (!c->left)
		return NULL;
	c->left--;
	c->allocs++;
	c->bytes += n;
	return malloc(n);
}

static void count_free(void *ctx, void *p, size_t n)
{
	count_mem *c = ctx;
	c->frees++;
	c->bytes -= n;
	free(p);
}

/* sched4k.v7 (the shared samples): 2 CPUs, trace clock "local", uname "Linux vm
 * 6.18.44-fc-v769 x86_64", 71 saved threads, first event 192.833676481
 * (tracebound stats; the cli_convert test's 71 threads). */
START_TEST(session_config_begin_clock)
{
	size_t len;
	uint8_t *dat = tb_test_read_file(tb_test_path("../shared/samples/sched4k.v7.dat"), &len);
	tb_session *s = open_skipping(dat, len);
	tb_pf_writer *w = calloc(1, sizeof(*w));
	tb_pf_config cfg;
	tb_session_event ev;
	count_mem cm = { 0, 0, 0, 100 };
	tb_mem m = { count_alloc, count_free, &cm };
	sink *out = calloc(1, sizeof(*out));
	tb_error err;
	int have = -1;
	pbf pkt, si;
	ck_assert(w && out);
	memset(&cfg, 0xff, sizeof(cfg)); /* only nslots, big_endian and clock set */
	cfg.flags = 0;
	tb_pf_session_config(&cfg, s);
	ck_assert_uint_eq(cfg.nslots, 2);
	ck_assert_int_eq(cfg.big_endian, 0);
	ck_assert_uint_eq(cfg.clock_len, 5);
	ck_assert_int_eq(memcmp(cfg.clock, "local", 5), 0);
	tb_pf_session_config(NULL, s);
	tb_pf_session_config(&cfg, NULL);
	cfg.write = sink_write;
	cfg.ctx = out;
	cfg.bundles = cfg.scratch = NULL; /* taken from m */
	cfg.bundle_size = cfg.scratch_size = 0;
	cfg.mem = &m;
	ck_assert_int_eq(tb_pf_init(w, &cfg, &err), TB_OK);
	ck_assert_uint_eq(cm.allocs, 2);
	ck_assert_uint_eq(cm.bytes, 2 * TB_PF_DEFAULT_BUNDLE + TB_PF_DEFAULT_SCRATCH);
	ck_assert_int_eq(tb_pf_session_begin(w, s, &err), TB_OK);
	ck_assert_uint_eq(w->stats.threads, 71);
	ck_assert(packet_at(out, 0, &pkt)); /* SystemInfo first: the release */
	ck_assert(find(pkt.data, pkt.len, 45, &si));
	ck_assert(find(si.data, si.len, 1, &si));    /* utsname */
	ck_assert(find(si.data, si.len, 3, &si));    /* release */
	ck_assert_uint_eq(si.len, 15);
	ck_assert_int_eq(memcmp(si.data, "6.18.44-fc-v769", 15), 0);
	ck_assert_uint_ge(w->stats.packets, 2); /* and the threads */
	ck_assert_int_eq(w->have_clock_ts, 0);
	ck_assert_int_eq(tb_pf_session_clock(w, s, &have, &err), TB_OK);
	ck_assert_int_eq(have, 1);
	ck_assert_int_eq(w->have_clock_ts, 1);
	ck_assert_uint_eq(w->clock_ts, 192833676481ull);
	/* rewound: the walk starts at that event */
	do
		ck_assert_int_eq(tb_session_next(s, &ev, &err), TB_OK);
	while (ev.kind != TB_SEV_EVENT);
	ck_assert_uint_eq(ev.ts, 192833676481ull);
	ck_assert_int_eq(tb_pf_session_begin(NULL, s, &err), TB_ERR_ARG);
	ck_assert_int_eq(tb_pf_session_clock(w, NULL, &have, &err), TB_ERR_ARG);
	tb_pf_release(w);
	ck_assert_uint_eq(cm.frees, cm.allocs);
	ck_assert_uint_eq(cm.bytes, 0);
	tb_pf_release(w); /* twice: nothing */
	ck_assert_uint_eq(cm.frees, cm.allocs);
	free(out);
	free(w);
	free(dat);
}
END_TEST

/* With cfg.mem a record larger than the scratch is grown into (to
 * need + 1 KiB) and written as a big scratch writes it; a refused
 * allocation is TB_ERR_NO_SPACE as without mem. */
START_TEST(writer_grows_scratch)
{
	pf_fixture fx;
	pf_env *big = env_new(2, 1024, 0), *small = env_new(2, 1024, 0);
	count_mem cm = { 0, 0, 0, 1 };
	tb_mem m = { count_alloc, count_free, &cm };
	uint8_t rec[64];
	tb_pf_record r;
	tb_error err;
	fixture(&fx);
	sched_switch_rec(rec, 1234, 0);
	memset(&r, 0, sizeof(r));
	r.cpu = 1;
	r.ts = 77;
	r.pid = 1234;
	r.format = fx.sw;
	r.data = rec;
	r.len = 64;
	ck_assert_int_eq(tb_pf_add(&big->w, &r, &err), TB_OK);
	small->cfg.scratch_size = 8;
	small->cfg.mem = &m;
	ck_assert_int_eq(tb_pf_init(&small->w, &small->cfg, &err), TB_OK);
	ck_assert_uint_eq(cm.allocs, 0); /* the caller's bundles and scratch */
	ck_assert_int_eq(tb_pf_add(&small->w, &r, &err), TB_OK);
	ck_assert_uint_eq(cm.allocs, 1);
	ck_assert_uint_eq(cm.bytes, small->w.need + 1024);
	ck_assert_uint_eq(small->w.cfg.scratch_size, small->w.need + 1024);
	ck_assert_int_eq(tb_pf_finish(&big->w, &err), TB_OK);
	ck_assert_int_eq(tb_pf_finish(&small->w, &err), TB_OK);
	ck_assert_uint_eq(small->out.len, big->out.len);
	ck_assert_int_eq(memcmp(small->out.buf, big->out.buf, big->out.len), 0);
	ck_assert_int_eq(memcmp(&small->w.stats, &big->w.stats, sizeof(tb_pf_stats)), 0);
	tb_pf_release(&small->w);
	ck_assert_uint_eq(cm.frees, 1);
	ck_assert_uint_eq(cm.bytes, 0);
	/* the allocator refuses: as a writer without mem */
	ck_assert_int_eq(tb_pf_init(&small->w, &small->cfg, &err), TB_OK);
	ck_assert_int_eq(tb_pf_add(&small->w, &r, &err), TB_ERR_NO_SPACE);
	ck_assert_uint_gt(small->w.need, 8);
	ck_assert_int_eq(tb_pf_system_info(&small->w, "Linux vm 6.1 x86_64", 19, &err),
			 TB_ERR_NO_SPACE);
	/* bundles from a refusing mem: nothing kept */
	small->cfg.bundles = NULL;
	ck_assert_int_eq(tb_pf_init(&small->w, &small->cfg, &err), TB_ERR_NO_SPACE);
	ck_assert_uint_eq(cm.allocs, 1);
	ck_assert_uint_eq(cm.frees, 1);
	free(small);
	free(big);
}
END_TEST

START_TEST(stats_add_sub)
{
	tb_pf_stats a, b, c;
	memset(&a, 0, sizeof(a));
	a.events = 10;
	a.typed = 7;
	a.lost_bundles = 2;
	a.threads = 71;
	memset(&b, 0, sizeof(b));
	b.events = 5;
	b.generic = 5;
	b.bytes = 1u << 20;
	c = a;
	tb_pf_stats_add(&c, &b);
	ck_assert_uint_eq(c.events, 15);
	ck_assert_uint_eq(c.typed, 7);
	ck_assert_uint_eq(c.generic, 5);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_uint_eq(c.lost_bundles, 2);
	ck_assert_uint_eq(c.threads, 71);
	tb_pf_stats_sub(&c, &a);
	ck_assert_int_eq(memcmp(&c, &b, sizeof(c)), 0);
}
END_TEST

Suite *tb_suite_protobuf(void)
{
	Suite *s = suite_create("protobuf");
	TCase *t = tcase_create("wire");
	tcase_add_test(t, varint_edges);
	tcase_add_test(t, zigzag_values);
	tcase_add_test(t, spec_examples);
	tcase_add_test(t, bytes_every_short_length);
	tcase_add_test(t, nested_lengths);
	tcase_add_test(t, buffer_limits);
	tcase_add_test(t, misuse_and_callback_errors);
	tcase_add_test(t, field_errors);
	suite_add_tcase(s, t);
	t = tcase_create("perfetto");
	tcase_add_test(t, typed_sched_switch);
	tcase_add_test(t, typed_repeated_and_dropped);
	tcase_add_test(t, generic_fields);
	tcase_add_test(t, bundles_and_losses);
	tcase_add_test(t, threads_and_output_errors);
	tcase_add_test(t, session_events);
	tcase_add_test(t, utf8_and_clocks);
	tcase_add_test(t, system_info);
	tcase_add_test(t, output_errors_midway);
	tcase_add_test(t, encode_place_is_add);
	tcase_add_test(t, flush_cuts_runs);
	tcase_add_test(t, encode_place_errors);
	tcase_add_test(t, cli_convert);
	tcase_add_test(t, session_config_begin_clock);
	tcase_add_test(t, writer_grows_scratch);
	tcase_add_test(t, stats_add_sub);
	tcase_add_test(t, table_matches_schema);
	suite_add_tcase(s, t);
	return s;
}
