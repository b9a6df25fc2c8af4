// Checks tracebound's Parquet output with two independent readers.
//
//   node check.mjs --cli TRACEBOUND --tepsum PARQUET_TEPSUM --out DIR FILE.dat...
//   node check.mjs --cli TRACEBOUND --out DIR --open-only FILE...
//
// For each capture: `tracebound convert --to parquet` writes the tables;
// DuckDB opens every file; per table count(*) equals `tracebound stats`'s
// count of that event and libtraceevent's (parquet_tepsum); sum() of every
// numeric column (list elements too) equals the sum libtraceevent reads
// from the same records; every string column holds the same strings (an
// order-sensitive hash); the events table's counts per event match too.
// hyparquet then reads every file to the same sums and hashes.
// --open-only (the fuzz corpus): convert must exit 0, 1 or 2 without a
// signal, and DuckDB must open every file it wrote.
// Ends on "N passed, N failed"; exit 1 on any failure.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, renameSync, rmSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects, parquetMetadata } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { check, finish, statsCounts } from './tally.mjs';

const args = process.argv.slice(2);
let cli, tepsum, out, openOnly = false;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--cli') cli = args[++i];
  else if (args[i] === '--tepsum') tepsum = args[++i];
  else if (args[i] === '--out') out = args[++i];
  else if (args[i] === '--open-only') openOnly = true;
  else files.push(args[i]);
}
if (!cli || !out || !files.length || (!openOnly && !tepsum)) {
  console.error('usage: check.mjs --cli TRACEBOUND [--tepsum PARQUET_TEPSUM] --out DIR [--open-only] FILE...');
  process.exit(2);
}


// FNV-1a 64 over (4-byte LE length, bytes) per value, as parquet_tepsum.
function hashInit() { return 0xcbf29ce484222325n; }
function hashBytes(h, bytes) {
  const M = 0xffffffffffffffffn;
  const feed = (b) => { h ^= BigInt(b); h = (h * 0x100000001b3n) & M; };
  const n = bytes.length;
  feed(n & 0xff); feed((n >> 8) & 0xff); feed((n >> 16) & 0xff); feed((n >>> 24) & 0xff);
  for (const b of bytes) feed(b);
  return h;
}
const hex = (h) => h.toString(16).padStart(16, '0');
const q = (name) => '"' + name.replaceAll('"', '""') + '"';
function toBytes(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (v instanceof Uint8Array) return v;
  if (v.bytes instanceof Uint8Array) return v.bytes; // DuckDBBlobValue
  throw new Error('not bytes: ' + typeof v);
}

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
async function rows(sql) { return (await con.runAndReadAll(sql)).getRows(); }

async function checkOpen(dir, what) {
  const pq = readdirSync(dir).filter((f) => f.endsWith('.parquet'));
  for (const f of pq) {
    let ok = true;
    try { await rows(`SELECT count(*) FROM read_parquet('${join(dir, f)}')`); }
    catch (e) { ok = false; console.log(`  duckdb: ${e.message}`); }
    check(ok, `${what}: DuckDB opens ${f}`);
  }
  return pq;
}

// The session columns before the fields (docs/tables.md).
const NSESSION = 7;

// One table: DuckDB's aggregates against the oracle, then hyparquet's.
async function checkTable(path, meta, tep, stats, what) {
  const desc = await rows(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
  const cols = desc.map((r) => ({ name: r[0], type: r[1] }));
  const fields = tep.fields;
  check(cols.length === NSESSION + fields.length, `${what}: ${cols.length} columns for ${fields.length} fields`);
  const [cnt] = (await rows(`SELECT count(*) FROM read_parquet('${path}')`))[0];
  check(Number(cnt) === tep.count, `${what}: count(*) ${cnt} == libtraceevent ${tep.count}`);
  check(Number(cnt) === stats.get(`${meta.system}:${meta.name}`),
    `${what}: count(*) ${cnt} == tracebound stats ${stats.get(`${meta.system}:${meta.name}`)}`);
  check(Number(cnt) === meta.rows, `${what}: count(*) == metadata rows`);
  // numeric columns: one query of every sum
  const sums = [`sum(__ts)::VARCHAR`, `sum(__cpu)::VARCHAR`, `sum(__pid)::VARCHAR`];
  const numIdx = [];
  fields.forEach((f, i) => {
    const c = cols[NSESSION + i];
    check(c && c.name === f.name, `${what}: column ${c?.name} is field ${f.name}`);
    if (f.kind === 'num') { numIdx.push(i); sums.push(`sum(${q(c.name)})::VARCHAR`, `count(${q(c.name)})`); }
  });
  const agg = (await rows(`SELECT ${sums.join(', ')} FROM read_parquet('${path}')`))[0];
  const z = (v) => (v === null ? '0' : String(v));
  check(z(agg[0]) === tep.ts, `${what}: sum(ts)`);
  check(z(agg[1]) === tep.cpu, `${what}: sum(cpu)`);
  check(z(agg[2]) === tep.pid, `${what}: sum(pid) ${agg[2]} == ${tep.pid}`);
  numIdx.forEach((i, k) => {
    const f = fields[i];
    check(z(agg[3 + 2 * k]) === f.sum, `${what}: sum(${f.name}) ${agg[3 + 2 * k]} == libtraceevent ${f.sum}`);
    check(Number(agg[4 + 2 * k]) === f.n, `${what}: count(${f.name}) == ${f.n}`);
  });
  const duck = { hashes: new Map(), lists: new Map() };
  for (const [i, f] of fields.entries()) {
    const c = cols[NSESSION + i];
    if (f.kind === 'list') {
      const [[s, n]] = await rows(`SELECT sum(x)::VARCHAR, count(x) FROM (SELECT unnest(${q(c.name)}) AS x FROM read_parquet('${path}'))`);
      check(z(s) === f.sum && Number(n) === f.n, `${what}: list ${f.name} sum ${s}/${n} == ${f.sum}/${f.n}`);
    } else if (f.kind === 'str' || f.kind === 'bytes') {
      let h = hashInit(), n = 0;
      for (const [v] of await rows(`SELECT ${q(c.name)} FROM read_parquet('${path}')`)) {
        const b = toBytes(v);
        if (b) { h = hashBytes(h, b); n++; }
      }
      check(hex(h) === f.hash && n === f.n, `${what}: strings of ${f.name} (${n}) == libtraceevent's (${f.n})`);
    }
  }
  // hyparquet: the same file, the same values
  const buf = readFileSync(path);
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const objs = await parquetReadObjects({ file, compressors, utf8: false });
  check(objs.length === tep.count, `${what}: hyparquet rows ${objs.length}`);
  const big = (v) => (typeof v === 'bigint' ? v : BigInt(v));
  let ts = 0n, cpu = 0n, pid = 0n;
  for (const o of objs) { ts += big(o.__ts); cpu += big(o.__cpu); pid += big(o.__pid ?? 0); }
  check(String(ts) === tep.ts && String(cpu) === tep.cpu && String(pid) === tep.pid, `${what}: hyparquet ts/cpu/pid sums`);
  for (const [i, f] of fields.entries()) {
    const name = cols[NSESSION + i].name;
    if (f.kind === 'num' || f.kind === 'list') {
      let s = 0n, n = 0;
      for (const o of objs) {
        const v = o[name];
        if (v === null || v === undefined) continue;
        if (f.kind === 'num') { s += big(v); n++; }
        else for (const e of v) { s += big(e); n++; }
      }
      check(String(s) === f.sum && n === f.n, `${what}: hyparquet sum(${name}) ${s} == ${f.sum}`);
    } else {
      let h = hashInit(), n = 0;
      for (const o of objs) {
        const b = toBytes(o[name]);
        if (b) { h = hashBytes(h, b); n++; }
      }
      check(hex(h) === f.hash && n === f.n, `${what}: hyparquet strings of ${name}`);
    }
  }
}

for (const [k, file] of files.entries()) {
  const outDir = join(out, String(k));
  rmSync(outDir, { recursive: true, force: true });
  const run = spawnSync(cli, ['convert', '--to', 'parquet', outDir, file], { encoding: 'utf8' });
  const what = basename(file);
  if (openOnly) {
    const clean = run.signal === null && [0, 1, 2].includes(run.status) &&
      !/Sanitizer|runtime error:/.test(run.stderr);
    check(clean, `${what}: convert exits cleanly (status ${run.status}, signal ${run.signal}) ${clean ? '' : run.stderr}`);
    if (run.status === 1 || run.status === 2)
      check(/^tracebound: /m.test(run.stderr), `${what}: a failed convert says why`);
    if (existsSync(outDir))
      for (const d of readdirSync(outDir)) await checkOpen(join(outDir, d), what);
    continue;
  }
  check(run.status === 0, `${what}: convert exit ${run.status} ${run.stderr}`);
  // the upload's partition (trace_id=ID), renamed: a path without "="
  // keeps DuckDB from adding trace_id to each file's columns
  const dir = join(outDir, 'upload');
  renameSync(join(outDir, readdirSync(outDir)[0]), dir);
  const meta = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8'));
  const pq = await checkOpen(dir, what);
  check(pq.length === meta.tables.length + 1, `${what}: every table in metadata.json, and metadata.parquet`);
  const stats = statsCounts(cli, file);
  const tep = JSON.parse(execFileSync(tepsum, [file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
  let total = 0;
  for (const t of meta.tables) {
    if (t.file === 'events.parquet') continue;
    const key = t.file.replace(/\.parquet$/, '');
    check(tep[key] !== undefined, `${what}: libtraceevent knows ${key}`);
    if (tep[key]) await checkTable(join(dir, t.file), t, tep[key], stats, `${what} ${key}`);
    total += t.rows;
  }
  // the events table: one row per event, counted per event name
  const ev = join(dir, 'events.parquet');
  const [[n]] = await rows(`SELECT count(*) FROM read_parquet('${ev}')`);
  check(Number(n) === meta.events && total + meta.events_without_format === meta.events,
    `${what}: events table ${n} rows == ${meta.events}`);
  const per = await rows(`SELECT __system, __name, count(*) FROM read_parquet('${ev}') WHERE __name IS NOT NULL GROUP BY ALL`);
  let same = per.length > 0;
  for (const [sys, name, c] of per) if (stats.get(`${sys}:${name}`) !== Number(c)) same = false;
  check(same, `${what}: events table counts per event == tracebound stats`);
  const hy = await parquetReadObjects({ file: readFileSync(ev).buffer, compressors });
  check(hy.length === meta.events, `${what}: hyparquet reads the events table`);
  console.log(`${what}: ${meta.tables.length} tables, ${meta.events} events checked`);
}
process.stdout.write('parquet: ');
finish();
