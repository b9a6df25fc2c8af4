/*
 * The shared bounds-checked reader (lib/reader.h), driven by the input.
 *
 * Every decoder rests on this cursor, so it gets its own narrow harness:
 * the first byte picks the byte order, then each following byte is an
 * operation applied to a reader over the whole input (so offsets and
 * lengths come from the same hostile bytes the reader reads).  After
 * every operation the cursor must stay inside the input and every
 * pointer handed out must lie inside it; a failed read must leave the
 * cursor where it was.
 */
#include <string.h>

#include "fuzz.h"
#include "internal.h"

/* An attacker-chosen size: small values and the wrap-around edges. */
static size_t pick_size(uint8_t b, size_t len)
{
	switch (b & 7u) {
	case 0: return b >> 3;
	case 1: return len;
	case 2: return len - (b >> 3 < len ? b >> 3 : len);
	case 3: return SIZE_MAX - (b >> 3);
	case 4: return (size_t)1 << (b >> 3 & 63u);
	default: return (size_t)b * 3u;
	}
}

static void check_span(const tb_reader *r, const void *p, size_t n)
{
	TB_FUZZ_CHECK(tb_fuzz_inside(p, n, r->data, r->len));
}

static void one_op(tb_reader *r, uint8_t op, uint8_t arg)
{
	size_t before = r->pos, n = pick_size(arg, r->len), off = n;
	const uint8_t *p = NULL;
	const char *s = NULL;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;
	tb_reader sub;
	int ok = 0;

	switch (op % 20u) {
	case 0: ok = tb_rd_skip(r, n); break;
	case 1: ok = tb_rd_seek(r, n); break;
	case 2: ok = tb_rd_bytes(r, n, &p); if (ok) check_span(r, p, n); break;
	case 3: ok = tb_rd_u8(r, &v8); break;
	case 4: ok = tb_rd_u16(r, &v16); break;
	case 5: ok = tb_rd_u32(r, &v32); break;
	case 6: ok = tb_rd_u64(r, &v64); break;
	case 7: ok = tb_rd_uN(r, arg & 15u, &v64); break;
	case 8: ok = tb_rd_ptr_at(r, off, arg & 15u, &p);
		if (ok) check_span(r, p, arg & 15u);
		break;
	case 9: (void)tb_rd_u8_at(r, off, &v8); (void)tb_rd_u16_at(r, off, &v16); break;
	case 10: (void)tb_rd_u32_at(r, off, &v32); (void)tb_rd_u64_at(r, off, &v64); break;
	case 11: (void)tb_rd_uN_at(r, off, arg & 15u, &v64); break;
	case 12:
		if (tb_rd_sub(r, r->pos, n, &sub)) {
			check_span(r, sub.data, sub.len);
			TB_FUZZ_CHECK(sub.len == n && sub.pos == 0);
		}
		break;
	case 13:
		ok = tb_rd_cstr(r, &s, &n);
		if (ok) {
			check_span(r, s, n + 1);
			TB_FUZZ_CHECK(s[n] == '\0' && memchr(s, 0, n) == NULL);
		}
		break;
	case 14:
		ok = tb_rd_line(r, &s, &n);
		if (ok) {
			check_span(r, s, n);
			TB_FUZZ_CHECK(memchr(s, '\n', n) == NULL);
			TB_FUZZ_CHECK(r->pos > before);
		}
		break;
	case 15:
	case 16:
		/* Parse the next short span as a number, both ways. */
		n = arg & 31u;
		if (tb_rd_has(r, n)) {
			const char *t = (const char *)r->data + r->pos;
			if (tb_parse_u64(t, n, &v64))
				TB_FUZZ_CHECK(n > 0);
			{
				/* sixteen digits are read eight at a time: the
				 * digit-by-digit rule is the oracle */
				uint64_t want = 0;
				int hex = n > 0 && n <= 16;
				size_t i;
				for (i = 0; hex && i < n; i++) {
					unsigned c = (unsigned char)t[i];
					unsigned d = c >= '0' && c <= '9'   ? c - '0'
						     : c >= 'a' && c <= 'f' ? c - 'a' + 10
						     : c >= 'A' && c <= 'F' ? c - 'A' + 10
									    : 16;
					hex = d < 16;
					want = want << 4 | (d & 15);
				}
				TB_FUZZ_CHECK(tb_parse_hex64(t, n, &v64) == hex);
				TB_FUZZ_CHECK(!hex || v64 == want);
			}
			(void)tb_span_eq(t, n, "0x");
			(void)tb_span_starts(t, n, "field:");
		}
		break;
	case 17: (void)tb_rd_has_at(r, off, n); (void)tb_rd_left(r); break;
	default: ok = tb_rd_has(r, n); break;
	}
	TB_FUZZ_CHECK(r->pos <= r->len);
	/* Only the sequential reads that succeeded may move the cursor. */
	if (!ok)
		TB_FUZZ_CHECK(r->pos == before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tb_reader r;
	size_t i;
	tb_error e;
	if (size < 1)
		return 0;
	tb_rd_init(&r, data, size, data[0] & 1);
	for (i = 1; i + 1 < size && i < 4096; i += 2)
		one_op(&r, data[i], data[i + 1]);
	(void)tb_fail(&e, TB_ERR_TRUNCATED, r.pos, "fuzz");
	TB_FUZZ_CHECK(e.offset == r.pos && tb_is_error(e.status));
	tb_error_clear(&e);
	TB_FUZZ_CHECK(e.status == TB_OK);
	(void)tb_strerror((tb_status)data[0]);
	return 0;
}
