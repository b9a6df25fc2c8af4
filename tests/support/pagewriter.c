/* Test-only sub-buffer writer (see tests/pagewriter.h). */
#include <string.h>

#include "pagewriter.h"

void tbt_pw_init(tbt_pw *w, uint8_t *buf, size_t size, int be,
		 unsigned long_size, uint64_t ts)
{
	memset(w, 0, sizeof(*w));
	memset(buf, 0, size);
	w->buf = buf;
	w->size = size;
	w->be = be;
	w->long_size = long_size;
	w->hdr = 8 + long_size;
	w->pos = w->hdr;
	if (size >= 8)
		tbt_pw_put(w, buf, ts, 8);
}

void tbt_pw_put(const tbt_pw *w, uint8_t *p, uint64_t v, unsigned n)
{
	unsigned i;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (w->be ? n - 1 - i : i)));
}

uint32_t tbt_pw_word(const tbt_pw *w, unsigned type_len, uint32_t delta)
{
	delta &= (1u << 27) - 1;
	return w->be ? (uint32_t)type_len << 27 | delta
		     : delta << 5 | (type_len & 31u);
}

static int room(tbt_pw *w, size_t n)
{
	if (w->pos > w->size || n > w->size - w->pos) {
		w->overflow = 1;
		return 0;
	}
	return 1;
}

void tbt_pw_u32(tbt_pw *w, uint32_t v)
{
	if (!room(w, 4))
		return;
	tbt_pw_put(w, w->buf + w->pos, v, 4);
	w->pos += 4;
}

size_t tbt_pw_data(tbt_pw *w, uint32_t delta, const void *payload,
		   size_t len, int force_long)
{
	size_t at = w->pos, len4 = (len + 3) & ~(size_t)3;
	if (len4 == 0)
		len4 = 4;
	if (len4 <= 112 && !force_long) {
		if (!room(w, 4 + len4))
			return at;
		tbt_pw_u32(w, tbt_pw_word(w, (unsigned)(len4 / 4), delta));
	} else {
		if (!room(w, 8 + len4))
			return at;
		tbt_pw_u32(w, tbt_pw_word(w, 0, delta));
		tbt_pw_u32(w, (uint32_t)(len + 4));
	}
	memset(w->buf + w->pos, 0, len4);
	if (len)
		memcpy(w->buf + w->pos, payload, len);
	w->pos += len4;
	return at;
}

size_t tbt_pw_padding(tbt_pw *w, uint32_t delta, uint32_t total)
{
	size_t at = w->pos;
	if (total < 8 || !room(w, total))
		return at;
	tbt_pw_u32(w, tbt_pw_word(w, 29, delta));
	tbt_pw_u32(w, total - 4);
	memset(w->buf + w->pos, 0, total - 8);
	w->pos += total - 8;
	return at;
}

size_t tbt_pw_null_padding(tbt_pw *w)
{
	size_t at = w->pos;
	tbt_pw_u32(w, tbt_pw_word(w, 29, 0));
	return at;
}

size_t tbt_pw_extend(tbt_pw *w, uint64_t delta)
{
	size_t at = w->pos;
	tbt_pw_u32(w, tbt_pw_word(w, 30, (uint32_t)(delta & ((1u << 27) - 1))));
	tbt_pw_u32(w, (uint32_t)(delta >> 27));
	return at;
}

size_t tbt_pw_stamp(tbt_pw *w, uint64_t ts)
{
	size_t at = w->pos;
	tbt_pw_u32(w, tbt_pw_word(w, 31, (uint32_t)(ts & ((1u << 27) - 1))));
	tbt_pw_u32(w, (uint32_t)((ts >> 27) & 0xffffffffu));
	return at;
}

void tbt_pw_commit(tbt_pw *w, uint64_t raw)
{
	if (w->size >= 8 + w->long_size)
		tbt_pw_put(w, w->buf + 8, raw, w->long_size);
}

void tbt_pw_finish(tbt_pw *w, int missed, int stored, uint64_t count)
{
	uint64_t commit = w->pos - w->hdr;
	if (missed)
		commit |= 1u << 31;
	if (stored) {
		commit |= 1u << 30;
		if (w->pos <= w->size && w->long_size <= w->size - w->pos)
			tbt_pw_put(w, w->buf + w->pos, count, w->long_size);
	}
	tbt_pw_commit(w, commit);
}
