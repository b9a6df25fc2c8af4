/* A deterministic mutator for robustness tests: bit flips, boundary values
 * in 1/2/4/8-byte fields, at hot spots or anywhere (support/mutate.c). */
#ifndef TB_TEST_MUTATE_H
#define TB_TEST_MUTATE_H

#include <stddef.h>
#include <stdint.h>

/* xorshift64; *state must not be 0. */
uint64_t tb_mut_rand(uint64_t *state);

/* One mutation of p[0..n): at hot[i] + a little (3 in 4 times, when hot
 * spots are given) or anywhere. */
void tb_mutate(uint8_t *p, size_t n, const size_t *hot, size_t nhot,
	       uint64_t *state);

#endif
