// Parquet tables as DuckDB reads them, for tests/python/test_schema.py:
// {FILE: {"columns": [[name, type]...], "rows": [[value...]...]}} on stdout
// (64-bit integers as decimal strings, so that a uint64 stays exact; no
// hive partition columns: the file's own columns only).
//
//   node tests/node/dump_table.mjs FILE.parquet...
import { DuckDBInstance } from '@duckdb/node-api';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const out = {};
for (const file of process.argv.slice(2)) {
  const src = `read_parquet('${file.replaceAll("'", "''")}', hive_partitioning = false)`;
  const desc = await c.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`);
  const columns = desc.getRows().map((r) => [r[0], r[1]]);
  const data = await c.runAndReadAll(`SELECT * FROM ${src}`);
  out[file] = { columns, rows: data.getRowsJson() };
}
process.stdout.write(JSON.stringify(out));
