/*
 * trace.dat scans shared by the open (tracedat.c) and datwalk.c.
 *
 * Internal header: not installed, not part of the API.
 */
#ifndef TB_LIB_DATWALK_H
#define TB_LIB_DATWALK_H

#include "tracebound/tracedat.h"
#include "reader.h"

/* v6 salvage: the offset >= from of the next "options" (first 0),
 * "flyrecord" (1) or "latency" (2) tag at or after tag `first` (*which
 * says which), or SIZE_MAX. */
size_t tb_dat_find_v6_tag(const tb_reader *f, size_t from, unsigned first,
			  unsigned *which);
/* v6 salvage: could a data part with tag `which` at t, n CPUs, be real? */
int tb_dat_v6_plausible(const tb_reader *f, uint32_t page_size, size_t t,
			unsigned which, uint32_t n);
/* The whole chunks of a framing whose count (count) is at p, before hi. */
uint64_t tb_dat_whole_chunks(const tb_reader *f, uint64_t p, uint64_t hi,
			     uint32_t count, uint32_t *k, uint64_t *tail);
/* Salvage: CPU ranges of a buffer section found from its data. */
size_t tb_dat_split_cpus(const tb_reader *f, const tb_dat_buffer *bf,
			 uint64_t lo, uint64_t hi, size_t max, tb_dat_cpu *out);

#endif
