/*
 * The oracle for tests/node/check.mjs: per event type of a trace.dat, the
 * number of records and, per field as libtraceevent reads it, the sum of
 * the numeric values (array elements too) and a hash of the strings, as
 * JSON on stdout:
 *
 *   {"SYSTEM-EVENT": {"count": N, "ts": "SUM", "cpu": "SUM", "pid": "SUM",
 *     "fields": [{"name": "...", "kind": "num"|"str"|"list"|"bytes",
 *                 "sum": "S", "n": N, "hash": "H"}, ...]}, ...}
 *
 * The records come from tracebound's session (cli/capture.c: the
 * container and pages, tested against kbuffer elsewhere); the formats
 * are parsed and every field is read by libtraceevent (tep_parse_event,
 * tep_read_number_field, tep_get_field_raw), independently of
 * tracebound's format parser and field readers.  Test code: allocates.
 *
 *   parquet_tepsum FILE.dat
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "capture.h"

#define MAX_ID 65536
#define MAX_F 256

typedef struct fsum {
	struct tep_format_field *f;
	int kind;               /* 0 num, 1 str, 2 list, 3 bytes */
	__int128 sum;
	uint64_t n, hash;
} fsum;

typedef struct esum {
	struct tep_event *ev;
	uint64_t count;
	__int128 ts, cpu, pid;
	fsum fs[MAX_F];
	size_t nf;
} esum;

static esum *sums[MAX_ID];

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Hash of one string value: its length (4 bytes LE) then its bytes. */
static uint64_t hash_value(uint64_t h, const void *p, size_t n)
{
	uint8_t l[4] = { (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24) };
	return fnv(fnv(h, l, 4), p, n);
}

static void print128(__int128 v)
{
	char buf[64];
	int i = 63, neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (neg)
		buf[--i] = '-';
	printf("\"%s\"", buf + i);
}

static int is_text_type(const char *t)
{
	return strstr(t, "char") != NULL;
}

static void add_fields(esum *s, struct tep_format_field *f)
{
	for (; f && s->nf < MAX_F; f = f->next) {
		fsum *x = &s->fs[s->nf++];
		x->f = f;
		x->hash = 0xcbf29ce484222325ULL;
		if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
		    (f->flags & TEP_FIELD_IS_STRING)) {
			unsigned es = f->elementsize;
			if (is_text_type(f->type) || (f->flags & TEP_FIELD_IS_STRING))
				x->kind = 1;
			else if (es == 1 || es == 2 || es == 4 || es == 8)
				x->kind = 2;
			else
				x->kind = 3;
		} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
			x->kind = 0;
		} else {
			x->kind = 3;
		}
	}
}

static esum *get_sum(struct tep_event *ev)
{
	esum *s;
	if (ev->id < 0 || ev->id >= MAX_ID)
		return NULL;
	if (sums[ev->id])
		return sums[ev->id];
	s = calloc(1, sizeof(*s));
	s->ev = ev;
	add_fields(s, ev->format.common_fields);
	add_fields(s, ev->format.fields);
	sums[ev->id] = s;
	return s;
}

/* The value as a number: sign-extended when the field is signed. */
static __int128 sext(uint64_t v, int size, int is_signed)
{
	if (size < 8)
		v &= ((uint64_t)1 << (size * 8)) - 1;
	if (!is_signed)
		return (__int128)v;
	if (size >= 8)
		return (int64_t)v;
	if (v >> (size * 8 - 1))
		v |= UINT64_MAX << (size * 8);
	return (int64_t)v;
}

static void on_record(struct tep_handle *tep, const tb_session_event *dev)
{
	struct tep_record rec;
	struct tep_event *ev;
	esum *s;
	size_t i;
	memset(&rec, 0, sizeof(rec));
	rec.ts = dev->ts;
	rec.cpu = (int)dev->cpu;
	rec.data = (void *)(uintptr_t)dev->data;
	rec.size = (int)dev->len;
	ev = tep_find_event_by_record(tep, &rec);
	if (!ev || !(s = get_sum(ev)))
		return;
	s->count++;
	s->ts += dev->ts;
	s->cpu += dev->cpu;
	s->pid += tep_data_pid(tep, &rec);
	for (i = 0; i < s->nf; i++) {
		fsum *x = &s->fs[i];
		struct tep_format_field *f = x->f;
		unsigned long long v;
		int len = 0;
		const uint8_t *p;
		if (x->kind == 0) {
			if (f->offset < 0 || f->offset + f->size > rec.size ||
			    tep_read_number_field(f, rec.data, &v))
				continue;
			x->sum += sext(v, f->size,
				       (f->flags & TEP_FIELD_IS_SIGNED) &&
					       !(f->flags & TEP_FIELD_IS_POINTER));
			x->n++;
			continue;
		}
		p = tep_get_field_raw(NULL, ev, f->name, &rec, &len, 0);
		if (!p || len < 0)
			continue;
		if (x->kind == 1) {
			const uint8_t *z = memchr(p, 0, (size_t)len);
			size_t n = z ? (size_t)(z - p) : (size_t)len;
			x->hash = hash_value(x->hash, p, n);
			x->n++;
		} else if (x->kind == 2) {
			unsigned es = f->elementsize, k;
			if ((unsigned)len % es)
				continue;
			for (k = 0; k < (unsigned)len / es; k++) {
				unsigned long long e = tep_read_number(tep, p + k * es, (int)es);
				x->sum += sext(e, (int)es, (f->flags & TEP_FIELD_IS_SIGNED) != 0);
				x->n++;
			}
		} else {
			x->hash = hash_value(x->hash, p, (size_t)len);
			x->n++;
		}
	}
}

static void print_name(const char *s)
{
	for (; *s; s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' || c == '.';
		putchar(ok ? c : '_');
	}
}

int main(int argc, char **argv)
{
	tb_session_options so = { 0, 0 };
	tb_cli_capture c;
	const tb_session_info *in;
	struct tep_handle *tep;
	tb_session_event ev;
	tb_error e;
	tb_status st;
	size_t i;
	int first = 1;
	if (argc != 2) {
		fprintf(stderr, "usage: parquet_tepsum FILE.dat\n");
		return 2;
	}
	if (tb_cli_capture_open(&c, argv[1], &so, NULL))
		return 1;
	in = tb_session_get_info(c.s);
	tep = tep_alloc();
	tep_set_file_bigendian(tep, in->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (int)in->long_size);
	for (i = 0; i < in->nformats; i++) {
		tb_span sys, text;
		char name[256];
		size_t n;
		if (!tb_session_format_at(c.s, i, &sys, &text, NULL) && !text.ptr)
			continue;
		n = sys.len < sizeof(name) - 1 ? sys.len : sizeof(name) - 1;
		memcpy(name, sys.ptr, n);
		name[n] = 0;
		(void)tep_parse_event(tep, text.ptr, text.len, name);
	}
	while ((st = tb_session_next(c.s, &ev, &e)) != TB_END)
		if (st == TB_OK)
			on_record(tep, &ev);
	printf("{");
	for (i = 0; i < MAX_ID; i++) {
		esum *s = sums[i];
		size_t k;
		if (!s)
			continue;
		printf("%s\n\"", first ? "" : ",");
		first = 0;
		print_name(s->ev->system);
		putchar('-');
		print_name(s->ev->name);
		printf("\": {\"id\": %d, \"count\": %llu, \"ts\": ", s->ev->id,
		       (unsigned long long)s->count);
		print128(s->ts);
		printf(", \"cpu\": ");
		print128(s->cpu);
		printf(", \"pid\": ");
		print128(s->pid);
		printf(", \"fields\": [");
		for (k = 0; k < s->nf; k++) {
			const fsum *x = &s->fs[k];
			static const char *const kinds[] = { "num", "str", "list", "bytes" };
			printf("%s{\"name\": \"%s\", \"kind\": \"%s\", \"n\": %llu, \"sum\": ",
			       k ? ", " : "", x->f->name, kinds[x->kind], (unsigned long long)x->n);
			print128(x->sum);
			printf(", \"hash\": \"%016llx\"}", (unsigned long long)x->hash);
		}
		printf("]}");
		free(s);
	}
	printf("\n}\n");
	tep_free(tep);
	tb_cli_capture_close(&c);
	return 0;
}
