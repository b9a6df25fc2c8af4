/*
 * A Parquet dataset of uploads (docs/parquet.md, "A dataset of uploads"):
 *
 *   DATASET/trace_id=<id>/events.parquet, metadata.parquet,
 *                         SYSTEM-EVENT.parquet, buffer-NAME/..., metadata.json
 *
 * One upload is written into a staging directory of its own,
 * DATASET/.tb-stage-<id>-XXXXXX (hidden: no reader's glob matches it),
 * and appears by one rename(2) to DATASET/trace_id=<id>: a crash leaves
 * only a hidden staging directory, two converts at once never write the
 * same directory, and when two publish the same id the second rename
 * fails (the partition exists and is not empty) and its copy is dropped.
 */
#ifndef TB_CLI_DATASET_H
#define TB_CLI_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "tracebound/dataset.h"
#include "tracebound/session.h"

typedef struct tb_ds_stage {
	char *root;     /* DATASET */
	char *dir;      /* the staging directory (NULL: none) */
	char *final;    /* DATASET/trace_id=<id> */
	char id[TB_TRACE_ID_LEN + 1];
} tb_ds_stage;

/* path made absolute (malloc'd), NULL when it cannot be: the source the
 * metadata names. */
char *tb_ds_abspath(const char *path);

/* DATASET/trace_id=<id> exists: 1, else 0. */
int tb_ds_present(const char *root, const char *id);

/* A staging directory for upload id under root: 0, or -1 said on stderr. */
int tb_ds_stage_begin(tb_ds_stage *st, const char *root, const char *id);
/* Publish it: 0 (now visible), 1 (the id was already there: the staged
 * copy is removed), -1 (said; the staging directory is removed). */
int tb_ds_stage_publish(tb_ds_stage *st);
/* Remove the staging directory and everything in it; free st. */
void tb_ds_stage_end(tb_ds_stage *st);

/* mkdir -p: each parent, then dir: 0, or -1 (errno says why). */
int tb_ds_mkdir_p(const char *dir);

#endif
