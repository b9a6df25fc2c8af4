/* SHA-256 as FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1, 6.2) defines it,
 * and the trace id of an upload built on it (tracebound/dataset.h). */
#include <string.h>

#include "internal.h"
#include "tracebound/dataset.h"

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (FIPS 180-4, 4.2.2). */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t *blk)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	unsigned i;
	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[(size_t)4 * i] << 24 | (uint32_t)blk[(size_t)4 * i + 1] << 16 |
		       (uint32_t)blk[(size_t)4 * i + 2] << 8 | blk[(size_t)4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (i = 0; i < 64; i++) {
		t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] +
		     w[i];
		t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

TB_API void tb_sha256_init(tb_sha256 *s)
{
	/* the fractional parts of the square roots of the first 8 primes */
	static const uint32_t H0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, H0, sizeof(H0));
	s->fill = 0;
	s->total = 0;
}

TB_API void tb_sha256_update(tb_sha256 *s, const void *p, size_t n)
{
	const uint8_t *b = p;
	if (!n)
		return; /* p may be NULL then */
	s->total += n;
	if (s->fill) {
		size_t k = 64 - s->fill < n ? 64 - s->fill : n;
		memcpy(s->block + s->fill, b, k);
		s->fill += k, b += k, n -= k;
		if (s->fill < 64)
			return;
		compress(s->h, s->block);
		s->fill = 0;
	}
	for (; n >= 64; b += 64, n -= 64)
		compress(s->h, b);
	if (n)
		memcpy(s->block, b, n);
	s->fill = n;
}

TB_API void tb_sha256_final(tb_sha256 *s, uint8_t out[TB_SHA256_SIZE])
{
	uint64_t bits = s->total * 8;
	unsigned i;
	/* a 1 bit, zeros up to 56 bytes mod 64, the length in bits big-endian */
	s->block[s->fill++] = 0x80;
	if (s->fill > 56) {
		memset(s->block + s->fill, 0, 64 - s->fill);
		compress(s->h, s->block);
		s->fill = 0;
	}
	memset(s->block + s->fill, 0, 56 - s->fill);
	for (i = 0; i < 8; i++)
		s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	compress(s->h, s->block);
	for (i = 0; i < 32; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

static void put_len(tb_sha256 *s, uint64_t n)
{
	uint8_t b[8];
	unsigned i;
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(n >> (8 * i));
	tb_sha256_update(s, b, 8);
}

TB_API void tb_trace_id_raw_begin(tb_sha256 *s)
{
	static const char tag[] = "tracebound raw dumps 1";
	tb_sha256_init(s);
	tb_sha256_update(s, tag, sizeof(tag) - 1);
}

TB_API void tb_trace_id_part(tb_sha256 *s, unsigned kind, const char *name, size_t name_len,
			     const void *data, size_t len)
{
	uint8_t k = (uint8_t)kind;
	tb_sha256_update(s, &k, 1);
	put_len(s, name_len);
	tb_sha256_update(s, name, name_len);
	put_len(s, len);
	tb_sha256_update(s, data, len);
}

TB_API void tb_trace_id_final(tb_sha256 *s, char out[TB_TRACE_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[TB_SHA256_SIZE];
	unsigned i;
	tb_sha256_final(s, d);
	for (i = 0; i < TB_TRACE_ID_LEN / 2; i++) {
		out[(size_t)2 * i] = hex[d[i] >> 4];
		out[(size_t)2 * i + 1] = hex[d[i] & 15];
	}
	out[TB_TRACE_ID_LEN] = 0;
}

TB_API void tb_trace_id_dat(const void *data, size_t len, char out[TB_TRACE_ID_LEN + 1])
{
	tb_sha256 s;
	tb_sha256_init(&s);
	tb_sha256_update(&s, data, len);
	tb_trace_id_final(&s, out);
}

/* n in decimal into buf (11 bytes at least): its length */
static size_t decimal(uint32_t n, char *buf)
{
	char tmp[10];
	size_t k = 0, i;
	do
		tmp[k++] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	for (i = 0; i < k; i++)
		buf[i] = tmp[k - 1 - i];
	return k;
}

TB_API void tb_trace_id_raw(const void *header_page, size_t header_page_len,
			    const tb_session_format_text *formats, size_t nformats,
			    const tb_session_raw_cpu *cpus, size_t ncpus,
			    char out[TB_TRACE_ID_LEN + 1])
{
	tb_sha256 s;
	size_t i, done = 0;
	uint64_t last = 0; /* CPUs below this are done (first pass: none) */
	tb_trace_id_raw_begin(&s);
	if (header_page_len)
		tb_trace_id_part(&s, TB_TRACE_ID_HEADER_PAGE, "header_page", 11, header_page,
				 header_page_len);
	for (i = 0; i < nformats; i++)
		tb_trace_id_part(&s, TB_TRACE_ID_FORMAT, formats[i].system.ptr,
				 formats[i].system.len, formats[i].text.ptr, formats[i].text.len);
	/* CPUs by number, the smallest not done yet each pass (ties: as
	 * given); quadratic in the dumps, a command line's worth */
	while (done < ncpus) {
		uint64_t next = UINT64_MAX;
		for (i = 0; i < ncpus; i++)
			if (cpus[i].cpu >= last && cpus[i].cpu < next)
				next = cpus[i].cpu;
		for (i = 0; i < ncpus; i++)
			if (cpus[i].cpu == next) {
				char name[11];
				tb_trace_id_part(&s, TB_TRACE_ID_CPU, name, decimal(cpus[i].cpu, name),
						 cpus[i].data, cpus[i].len);
				done++;
			}
		last = next + 1;
	}
	tb_trace_id_final(&s, out);
}

TB_API void tb_trace_id_source(const tb_session_source *src, char out[TB_TRACE_ID_LEN + 1])
{
	if (src->dat)
		tb_trace_id_dat(src->dat, src->dat_len, out);
	else if (src->perf) /* a perf.data: its bytes, as a trace.dat's */
		tb_trace_id_dat(src->perf, src->perf_len, out);
	else
		tb_trace_id_raw(src->header_page.ptr, src->header_page.len, src->formats,
				src->nformats, src->raw, src->nraw, out);
}
