/* The deterministic mutator (see tests/mutate.h). */
#include "mutate.h"

uint64_t tb_mut_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static const uint64_t boundary[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000,
	0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000u, 0xfffffffeu,
	0xffffffffu, 0x100000000ull, 0x7fffffffffffffffull,
	0xfffffffffffff000ull, UINT64_MAX
};

void tb_mutate(uint8_t *p, size_t n, const size_t *hot, size_t nhot,
	       uint64_t *state)
{
	size_t pos;
	unsigned kind, i, width;
	uint64_t v;
	if (n == 0)
		return;
	kind = (unsigned)(tb_mut_rand(state) % 4);
	pos = (nhot && tb_mut_rand(state) % 4 != 0)
		      ? hot[tb_mut_rand(state) % nhot] + (size_t)(tb_mut_rand(state) % 24)
		      : (size_t)(tb_mut_rand(state) % n);
	if (pos >= n)
		pos = (size_t)(tb_mut_rand(state) % n);
	switch (kind) {
	case 0: /* bit flip */
		p[pos] ^= (uint8_t)(1u << (tb_mut_rand(state) % 8));
		break;
	case 1: /* a byte to a boundary value */
		p[pos] = (uint8_t)boundary[tb_mut_rand(state) % 12];
		break;
	default: /* a 2/4/8-byte field to a boundary value (or near n) */
		width = 2u << (tb_mut_rand(state) % 3);
		v = tb_mut_rand(state) % 3 == 0
			    ? (uint64_t)n - 8 + tb_mut_rand(state) % 16
			    : boundary[tb_mut_rand(state) % (sizeof(boundary) / sizeof(boundary[0]))];
		for (i = 0; i < width && pos + i < n; i++)
			p[pos + i] = (uint8_t)(v >> (8 * i));
		break;
	}
}
