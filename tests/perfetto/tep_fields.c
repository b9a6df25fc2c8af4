/*
 * The reference for tests/perfetto/compare.py: every event of a trace.dat
 * with its field values as libtraceevent decodes them, one JSON object a
 * line:
 *
 *   {"cpu":N,"ts":T,"pid":P,"system":"..","name":"..","fields":{"f":V,...}}
 *
 * V is a number (signed when libtraceevent says the field is), a string
 * (char arrays, cut at the NUL) or a list of numbers (other arrays).
 * Then one line per saved cmdline as libtraceevent parsed it:
 *
 *   {"cmdline":PID,"comm":".."}
 *
 * The records themselves are walked with tracebound's trace.dat stream
 * (tested against trace-cmd elsewhere); every value is libtraceevent's.
 * Test tool: allocates and does I/O freely.
 *
 *   tep_fields FILE.dat
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <zstd.h>
#include <zlib.h>

#include "tracebound/tracebound.h"

static tb_status decompress(void *ctx, const char *algo, const void *src, size_t src_len,
			    void *dst, size_t dst_cap, size_t *produced)
{
	(void)ctx;
	if (!strcmp(algo, "zstd")) {
		size_t r = ZSTD_decompress(dst, dst_cap, src, src_len);
		if (ZSTD_isError(r))
			return TB_ERR_VALUE;
		*produced = r;
		return TB_OK;
	}
	if (!strcmp(algo, "zlib")) {
		uLongf out = (uLongf)dst_cap;
		if (uncompress(dst, &out, src, (uLong)src_len) != Z_OK)
			return TB_ERR_VALUE;
		*produced = out;
		return TB_OK;
	}
	return TB_ERR_UNSUPPORTED;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap && p)
		return p;
	free(p);
	*cap = need;
	return calloc(need ? need : 1, elem);
}

static void json_str(const unsigned char *s, size_t n)
{
	size_t i;
	putchar('"');
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			printf("\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] >= 0x7f)
			printf("\\u%04x", s[i]);
		else
			putchar(s[i]);
	}
	putchar('"');
}

static void number(struct tep_handle *tep, const unsigned char *p, int size, int sign)
{
	unsigned long long v = tep_read_number(tep, p, size);
	if (sign && size < 8 && size > 0) {
		unsigned long long m = 1ull << (size * 8 - 1);
		v = (v ^ m) - m;
	}
	if (sign)
		printf("%lld", (long long)v);
	else
		printf("%llu", v);
}

static void field_value(struct tep_handle *tep, struct tep_event *ev,
			struct tep_format_field *f, struct tep_record *rec)
{
	const unsigned char *p;
	int len = 0;
	struct trace_seq s;
	trace_seq_init(&s);
	p = tep_get_field_raw(&s, ev, f->name, rec, &len, 0);
	trace_seq_destroy(&s);
	if (!p) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC) { /* an empty dynamic field */
			printf((f->flags & TEP_FIELD_IS_STRING) ? "\"\"" : "[]");
			return;
		}
		printf("null");
		return;
	}
	if (f->size == 0 && !(f->flags & TEP_FIELD_IS_DYNAMIC)) /* char buf[]: to the end */
		len = rec->size - f->offset;
	if (f->flags & TEP_FIELD_IS_STRING) {
		const unsigned char *nul = memchr(p, 0, (size_t)len);
		json_str(p, nul ? (size_t)(nul - p) : (size_t)len);
	} else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		int es = (int)f->elementsize, i;
		if (es <= 0 || (es != 1 && es != 2 && es != 4 && es != 8))
			es = 1;
		putchar('[');
		for (i = 0; i + es <= len; i += es) {
			if (i)
				putchar(',');
			number(tep, p + i, es, (f->flags & TEP_FIELD_IS_SIGNED) != 0);
		}
		putchar(']');
	} else {
		number(tep, p, f->size, (f->flags & TEP_FIELD_IS_SIGNED) != 0);
	}
}

int main(int argc, char **argv)
{
	static tb_dat d;
	tb_dat_storage st;
	tb_dat_decompressor dc = { decompress, NULL };
	tb_error e;
	tb_status s;
	struct tep_handle *tep;
	FILE *f;
	unsigned char *file;
	long flen;
	size_t i, b;
	int round;
	char *cmd;
	tb_cmdline *cv;
	tb_cmdlines cl;

	if (argc != 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	flen = ftell(f);
	fseek(f, 0, SEEK_SET);
	file = malloc((size_t)flen + 1);
	if (!file || fread(file, 1, (size_t)flen, f) != (size_t)flen)
		return 2;
	fclose(f);
	memset(&st, 0, sizeof(st));
	for (round = 0;; round++) {
		s = tb_dat_open(&d, file, (size_t)flen, &st, &dc, &e);
		if (s != TB_ERR_NO_SPACE || round > 4)
			break;
		st.events = grow(st.events, &st.events_cap, d.need.events, sizeof(tb_dat_event_text));
		st.buffers = grow(st.buffers, &st.buffers_cap, d.need.buffers, sizeof(tb_dat_buffer));
		st.cpus = grow(st.cpus, &st.cpus_cap, d.need.cpus, sizeof(tb_dat_cpu));
		st.cpustats = grow(st.cpustats, &st.cpustats_cap, d.need.cpustats, sizeof(tb_dat_text));
		st.scratch = grow(st.scratch, &st.scratch_cap, d.need.scratch, 1);
	}
	if (s) {
		fprintf(stderr, "tep_fields: %s: %s\n", argv[1], e.what);
		return 1;
	}
	tep = tep_alloc();
	tep_set_file_bigendian(tep, d.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (int)d.long_size);
	tep_set_page_size(tep, (int)d.page_size);
	{
		char *hp = malloc(d.header_page.len + 1);
		memcpy(hp, d.header_page.ptr, d.header_page.len);
		hp[d.header_page.len] = 0;
		tep_parse_header_page(tep, hp, d.header_page.len, (int)d.long_size);
		free(hp);
	}
	for (i = 0; i < d.nevents; i++) {
		char sys[256];
		size_t n = d.events[i].system.len < 255 ? d.events[i].system.len : 255;
		memcpy(sys, d.events[i].system.ptr, n);
		sys[n] = 0;
		tep_parse_event(tep, d.events[i].format.ptr, d.events[i].format.len, sys);
	}
	for (b = 0; b < d.nbuffers; b++) {
		const tb_dat_buffer *buf = &d.buffers[b];
		tb_kbuf_layout layout;
		tb_dat_stream ds;
		tb_dat_cursor *cur = calloc(buf->ncpus + 1, sizeof(*cur));
		uint8_t *chunks = NULL;
		size_t per = 0;
		tb_dat_event ev;
		if (tb_kbuf_layout_from_header_page(d.header_page.ptr, d.header_page.len,
						    d.big_endian, &layout, &e) != TB_OK)
			return 1;
		if (buf->page_size != layout.subbuf_size &&
		    tb_kbuf_layout_init_ex(&layout, layout.big_endian, layout.long_size,
					   layout.header_size, buf->page_size, layout.flags) != TB_OK)
			continue;
		if (tb_dat_chunk_max(&d, buf, &per, &e) != TB_OK)
			continue;
		chunks = per ? malloc(per * buf->ncpus) : NULL;
		if (tb_dat_stream_init(&ds, &d, buf, &layout, cur, buf->ncpus, chunks, per, 0, &e))
			continue;
		for (;;) {
			struct tep_record rec;
			struct tep_event *tev;
			struct tep_format_field *fl;
			int first = 1;
			s = tb_dat_stream_next(&ds, &ev, &e);
			if (s == TB_END)
				break;
			if (s)
				continue;
			memset(&rec, 0, sizeof(rec));
			rec.ts = ev.ts;
			rec.cpu = (int)ev.cpu;
			rec.size = (int)ev.len;
			rec.data = (void *)(uintptr_t)ev.data;
			tev = ev.len >= 2 ? tep_find_event(tep, tep_data_type(tep, &rec)) : NULL;
			printf("{\"cpu\":%u,\"ts\":%llu,\"pid\":%d,", ev.cpu, (unsigned long long)ev.ts,
			       tev ? tep_data_pid(tep, &rec) : 0);
			if (!tev) {
				printf("\"system\":null,\"name\":null,\"fields\":{}}\n");
				continue;
			}
			printf("\"system\":");
			json_str((const unsigned char *)tev->system, strlen(tev->system));
			printf(",\"name\":");
			json_str((const unsigned char *)tev->name, strlen(tev->name));
			printf(",\"common_flags\":");
			fl = tep_find_common_field(tev, "common_flags");
			if (fl && fl->offset + fl->size <= rec.size)
				number(tep, (const unsigned char *)rec.data + fl->offset, fl->size, 0);
			else
				printf("0");
			printf(",\"fields\":{");
			for (fl = tev->format.fields; fl; fl = fl->next) {
				if (!first)
					putchar(',');
				first = 0;
				json_str((const unsigned char *)fl->name, strlen(fl->name));
				putchar(':');
				field_value(tep, tev, fl, &rec);
			}
			printf("}}\n");
		}
		free(cur);
		free(chunks);
	}
	printf("{\"uname\":");
	json_str((const unsigned char *)d.uname.ptr, d.uname.len);
	printf("}\n");
	/* the saved cmdlines as libtraceevent reads them */
	cmd = malloc(d.cmdlines.len + 1);
	memcpy(cmd, d.cmdlines.ptr, d.cmdlines.len);
	cmd[d.cmdlines.len] = 0;
	tep_parse_saved_cmdlines(tep, cmd);
	cl.cap = tb_cmdlines_count(d.cmdlines.ptr, d.cmdlines.len);
	cv = calloc(cl.cap + 1, sizeof(*cv));
	cl.v = cv;
	cl.n = 0;
	if (tb_cmdlines_parse(&cl, d.cmdlines.ptr, d.cmdlines.len, &e) == TB_OK)
		for (i = 0; i < cl.n; i++) {
			const char *c = tep_data_comm_from_pid(tep, cv[i].pid);
			printf("{\"cmdline\":%d,\"comm\":", cv[i].pid);
			json_str((const unsigned char *)c, strlen(c));
			printf("}\n");
		}
	free(cmd);
	free(cv);
	tep_free(tep);
	free(file);
	return 0;
}
