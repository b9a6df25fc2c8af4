// `tracebound report --json` read by a real JSON engine (issue 11): DuckDB's
// read_json takes every line of the samples; per event type the row count
// and the sum of every numeric field equal what libtraceevent reads from the
// same records (tests/parquet_tepsum.c), and the string fields hash the same.
//
//   node tests/node/json_check.mjs --cli build/tracebound --tepsum build/parquet_tepsum FILE.dat...
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
let cli = 'build/tracebound', tepsum = 'build/parquet_tepsum';
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--cli') cli = args[++i];
  else if (args[i] === '--tepsum') tepsum = args[++i];
  else files.push(args[i]);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
const dir = mkdtempSync(join(tmpdir(), 'tb-json-'));
let checks = 0, failed = 0;
const fail = (m) => { failed++; console.log('FAIL ' + m); };
// FNV-1a 64 chained over the rows in record order, each string as its
// length (4 bytes, little-endian) then its bytes: parquet_tepsum's digest
const fnv = (h, bytes) => {
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
};
const hashValue = (h, s) => {
  const b = Buffer.from(s, 'utf8'), n = b.length;
  return fnv(fnv(h, [n & 255, (n >> 8) & 255, (n >> 16) & 255, n >>> 24]), b);
};
for (const f of files) {
  const out = join(dir, 'events.jsonl');
  writeFileSync(out, execFileSync(cli, ['report', '--json', f], { maxBuffer: 1 << 30 }));
  const want = JSON.parse(execFileSync(tepsum, [f], { maxBuffer: 1 << 30 }).toString());
  await con.run(`CREATE OR REPLACE TABLE ev AS SELECT row_number() OVER () AS rn, * FROM read_json('${out}',
      format='newline_delimited', columns={cpu:'UBIGINT', ts:'UBIGINT', pid:'BIGINT',
      system:'VARCHAR', name:'VARCHAR', id:'UBIGINT', fields:'JSON'})`);
  const counts = new Map();
  for (const [sys, name, n] of await rows(`SELECT system, name, count(*) FROM ev GROUP BY ALL`))
    counts.set(`${sys}-${name}`, Number(n));
  for (const [key, t] of Object.entries(want)) {
    checks++;
    if (counts.get(key) !== t.count) { fail(`${f} ${key}: ${counts.get(key)} rows, libtraceevent ${t.count}`); continue; }
    const [sys, ...rest] = key.split('-');
    const name = rest.join('-');
    const where = `system='${sys}' AND name='${name}'`;
    const [[ts, cpu, pid]] = await rows(`SELECT sum(ts)::VARCHAR, sum(cpu)::VARCHAR, sum(pid)::VARCHAR FROM ev WHERE ${where}`);
    checks++;
    if (ts !== t.ts || cpu !== t.cpu || pid !== t.pid) fail(`${f} ${key}: ts/cpu/pid sums ${ts}/${cpu}/${pid}, libtraceevent ${t.ts}/${t.cpu}/${t.pid}`);
    for (const fl of t.fields) {
      const path = `'$."${fl.name}"'`;
      checks++;
      if (fl.kind === 'num') {
        const [[s]] = await rows(`SELECT coalesce(sum(CAST(json_extract(fields, ${path}) AS HUGEINT)), 0)::VARCHAR FROM ev WHERE ${where}`);
        if (s !== fl.sum) fail(`${f} ${key}.${fl.name}: sum ${s}, libtraceevent ${fl.sum}`);
      } else if (fl.kind === 'list') {
        const [[s]] = await rows(`SELECT coalesce(sum(CAST(e AS HUGEINT)), 0)::VARCHAR FROM (SELECT unnest(CAST(json_extract(fields, ${path}) AS HUGEINT[])) AS e FROM ev WHERE ${where})`);
        if (s !== fl.sum) fail(`${f} ${key}.${fl.name}: list sum ${s}, libtraceevent ${fl.sum}`);
      } else if (fl.kind === 'str') {
        let h = 0xcbf29ce484222325n;
        for (const [v] of await rows(`SELECT json_extract_string(fields, ${path}) FROM ev WHERE ${where} AND json_extract(fields, ${path}) IS NOT NULL ORDER BY rn`))
          h = hashValue(h, v);
        const got = h.toString(16).padStart(16, '0');
        if (got !== fl.hash.padStart(16, '0')) fail(`${f} ${key}.${fl.name}: string hash ${got}, libtraceevent ${fl.hash}`);
      } else {
        checks--; // opaque bytes: JSON has them as arrays; counted by the row check
      }
    }
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`${checks - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
