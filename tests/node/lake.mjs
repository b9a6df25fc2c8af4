// A dataset of many uploads (issue 41), read as engines read it.
//
//   node lake.mjs --cli TRACEBOUND --out DIR --events EVENTS_DIR --raw RAW_DIR FILE.dat...
//
// Into one dataset, DIR/ds: every FILE.dat, copies of them under the
// name every customer file has (a/trace.dat, b/trace.dat), one through
// stdin, the raw dumps of RAW_DIR, two converts at once, and one upload
// converted again.  Then, in DuckDB, one read_parquet(..., hive_partitioning
// = true, union_by_name = true) glob per table: rows per trace and event
// type equal the upload's own `tracebound stats` (raw dumps: `tracebound
// raw --json`), the per-event key has no duplicate, the metadata table
// joins in SQL; hyparquet reads every file to DuckDB's row counts; a
// removed upload is gone and the others stay.
// Ends on "N passed, N failed"; exit 1 on any failure.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { check, finish, statsCounts } from './tally.mjs';

const args = process.argv.slice(2);
let cli, out, events, raw;
const dats = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--cli') cli = args[++i];
  else if (args[i] === '--out') out = args[++i];
  else if (args[i] === '--events') events = args[++i];
  else if (args[i] === '--raw') raw = args[++i];
  else dats.push(args[i]);
}
if (!cli || !out || !events || !raw || dats.length < 2) {
  console.error('usage: lake.mjs --cli TRACEBOUND --out DIR --events DIR --raw DIR FILE.dat FILE.dat...');
  process.exit(2);
}


const ds = join(out, 'ds');
rmSync(out + '/a', { recursive: true, force: true });
rmSync(out + '/b', { recursive: true, force: true });
rmSync(ds, { recursive: true, force: true });
const rawArgs = ['--events', events, '--header-page', join(raw, 'header_page'),
  join(raw, 'cpu0.raw'), join(raw, 'cpu1.raw')];

// trace id -> how to count its events (stats, or raw --json)
const expect = new Map();
function ids(stdout, count) {
  const got = [];
  for (const line of stdout.split('\n')) {
    const m = /^trace_id=([0-9a-f]{32})\t/.exec(line);
    if (m) { got.push(m[1]); expect.set(m[1], count); }
  }
  return got;
}
function convert(what, argv, count, input) {
  const r = spawnSync(cli, ['convert', '--to', 'parquet', ...argv], { encoding: 'utf8', input });
  check(r.status === 0, `${what}: convert exit ${r.status} ${r.stderr}`);
  return ids(r.stdout, count);
}
const statsOf = (file) => () => statsCounts(cli, file);
const rawCounts = () => {
  const text = execFileSync(cli, ['raw', '--json', ...rawArgs], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const m = new Map();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.name !== undefined && e.name !== null)
      m.set(`${e.system}:${e.name}`, (m.get(`${e.system}:${e.name}`) ?? 0) + 1);
  }
  return m;
};

// ---- the uploads ----
// two converts at once into the new dataset (one upload in both)
const both = [[dats[0], dats[1]], [dats[1], dats[dats.length - 1]]].map((files) =>
  new Promise((resolve) => {
    const p = spawn(cli, ['convert', '--to', 'parquet', ds, ...files]);
    let so = '', se = '';
    p.stdout.on('data', (d) => { so += d; });
    p.stderr.on('data', (d) => { se += d; });
    p.on('close', (status) => resolve({ files, status, so, se }));
  }));
for (const r of await Promise.all(both)) {
  check(r.status === 0, `concurrent convert ${r.files}: exit ${r.status} ${r.se}`);
  const got = ids(r.so, null);
  got.forEach((id, k) => expect.set(id, statsOf(r.files[k])));
  check(got.length === r.files.length, `concurrent convert ${r.files}: ${got.length} ids`);
}
for (const f of dats) convert(f, [ds, f], statsOf(f));
// customer files are all called trace.dat
mkdirSync(join(out, 'a'), { recursive: true });
mkdirSync(join(out, 'b'), { recursive: true });
copyFileSync(dats[0], join(out, 'a/trace.dat'));
copyFileSync(dats[1], join(out, 'b/trace.dat'));
const idA = convert('a/trace.dat', [ds, join(out, 'a/trace.dat')], statsOf(dats[0]));
const idB = convert('b/trace.dat', [ds, join(out, 'b/trace.dat')], statsOf(dats[1]));
check(idA.length === 1 && idB.length === 1 && idA[0] !== idB[0], 'two trace.dat uploads: two ids');
// stdin: never a folder named '-'
const idIn = convert('stdin', [ds, '-'], statsOf(dats[0]), readFileSync(dats[0]));
check(idIn[0] === idA[0], 'stdin: the id of the same bytes');
check(!existsSync(join(ds, '-')), 'stdin: no folder named -');
// the raw dumps: one upload
const idRaw = convert('raw dumps', [...rawArgs.slice(0, 4), ds, ...rawArgs.slice(4)], rawCounts);
check(idRaw.length === 1, 'raw dumps: one id');

// a convert killed mid-way: no partition of it, only a hidden staging
// directory, which no glob sees
{
  const big = dats.map((f) => [statSync(f).size, f]).sort((x, y) => y[0] - x[0])[0][1];
  const dsk = join(out, 'killed');
  rmSync(dsk, { recursive: true, force: true });
  const p = spawn(cli, ['convert', '--to', 'parquet', '--jobs', '1', dsk, big]);
  const t0 = Date.now();
  // wait until it stages, then kill it
  while (Date.now() - t0 < 20000 && !(existsSync(dsk) && readdirSync(dsk).some((n) => n.startsWith('.tb-stage-'))))
    await new Promise((r) => setTimeout(r, 2));
  p.kill('SIGKILL');
  const status = await new Promise((r) => p.on('close', (c, sig) => r(sig)));
  const left = existsSync(dsk) ? readdirSync(dsk) : [];
  check(!left.some((n) => n.startsWith('trace_id=')) || status !== 'SIGKILL',
    `killed convert (${status}): nothing published (${left})`);
  console.log(`killed mid-way (${status}): left ${left.join(' ') || 'nothing'}`);
}

// converting an upload again changes nothing (same files, same times)
function tree(dir) {
  const all = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else { const s = statSync(p); all.push(`${relative(dir, p)} ${s.size} ${s.mtimeMs}`); }
    }
  };
  walk(dir);
  return all.sort().join('\n');
}
const before = tree(ds);
const again = spawnSync(cli, ['convert', '--to', 'parquet', ds, dats[0]], { encoding: 'utf8' });
check(again.status === 0 && /already in .* as trace_id=/.test(again.stderr),
  `again: exit ${again.status}, says ${again.stderr}`);
check(tree(ds) === before, 'again: the dataset is unchanged');
const parts = readdirSync(ds).sort();
check(parts.every((p) => /^trace_id=[0-9a-f]{32}$/.test(p)), `only partitions: ${parts}`);
check(parts.length === expect.size, `${parts.length} partitions for ${expect.size} distinct uploads`);
console.log(`dataset: ${parts.length} uploads`);

// ---- DuckDB ----
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const glob = (t) => `read_parquet(${q(`${ds}/trace_id=*/${t}`)}, hive_partitioning = true, union_by_name = true)`;

// the tables: every relative path under a partition
const tables = new Set();
for (const p of parts) {
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.parquet')) tables.add(relative(join(ds, p), join(d, e.name)));
    }
  };
  walk(join(ds, p));
}
const counts = new Map();
for (const [id, f] of expect) counts.set(id, f());

// rows per trace and event type: the events table, then each table
{
  const sys = '__system', nm = '__name'; // the one schema (docs/tables.md)
  const got = await rows(`SELECT trace_id, ${sys}, ${nm}, count(*) FROM ${glob('events.parquet')}
    WHERE ${nm} IS NOT NULL GROUP BY ALL`);
  const seen = new Map();
  for (const [id, s, n, c] of got) {
    const want = counts.get(id)?.get(`${s}:${n}`);
    check(Number(c) === want, `events ${id} ${s}:${n}: ${c} rows, stats ${want}`);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  for (const [id, m] of counts)
    check(seen.get(id) === m.size, `events ${id}: ${seen.get(id)} event types, stats ${m.size}`);
}
let perTable = 0;
for (const t of tables) {
  if (t === 'events.parquet' || t === 'metadata.parquet') continue;
  const got = await rows(`SELECT trace_id, count(*) FROM ${glob(t)} GROUP BY ALL`);
  for (const [id, c] of got) {
    const meta = JSON.parse(readFileSync(join(ds, `trace_id=${id}`, 'metadata.json'), 'utf8'));
    const tm = meta.tables.find((x) => x.file === t);
    const want = tm && counts.get(id).get(`${tm.system}:${tm.name}`);
    check(tm && Number(c) === want, `${t} ${id}: ${c} rows, stats ${want}`);
    perTable++;
  }
}
console.log(`tables: ${tables.size} globs, ${perTable} (table, trace) counts equal stats`);

// the per-event key: (trace_id, __buffer, __cpu, __subbuf, __offset)
{
  const [[n, d]] = await rows(`SELECT count(*), count(DISTINCT (trace_id, __buffer, __cpu, __subbuf, __offset))
    FROM ${glob('events.parquet')}`);
  check(n === d && n > 0n, `key: ${n} rows, ${d} distinct keys`);
  console.log(`key: ${n} rows, ${d} distinct`);
  let want = 0;
  for (const m of counts.values()) for (const c of m.values()) want += c;
  const [[nf]] = await rows(`SELECT sum(events_without_format) FROM ${glob('metadata.parquet')}`);
  check(Number(n) === want + Number(nf), `events: ${n} rows = ${want} with a format + ${nf} without (no copy counted twice)`);
}

// the metadata, joined in SQL
{
  const got = await rows(`SELECT m.trace_id, m.events, m.dropped, list_sum(m.cpu_dropped), count(*)
    FROM ${glob('events.parquet')} e JOIN ${glob('metadata.parquet')} m USING (trace_id) GROUP BY ALL`);
  check(got.length === parts.length, `join: ${got.length} traces`);
  for (const [id, ev, dr, drs, c] of got) {
    check(ev === c, `join ${id}: metadata events ${ev} = ${c} rows`);
    check(dr === drs, `join ${id}: dropped ${dr} = sum of cpu_dropped ${drs}`);
  }
  const [[nm, ns]] = await rows(`SELECT count(*), count(DISTINCT source) FROM ${glob('metadata.parquet')}`);
  check(Number(nm) === parts.length && ns > 0n, `metadata: ${nm} rows, one per upload`);
}

// the statements docs/parquet.md gives, as written ('dataset' is the
// path)
{
  const doc = readFileSync(new URL('../../docs/parquet.md', import.meta.url), 'utf8');
  const blocks = [...doc.matchAll(/<!-- lake-sql -->\n```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
  check(blocks.length >= 3, `docs/parquet.md: ${blocks.length} lake-sql statements`);
  for (const b of blocks) {
    let sql = b.replaceAll("'dataset/", `'${ds}/`);
    try {
      const got = await rows(sql);
      check(got.length > 0, `docs SQL returns rows: ${b}`);
    } catch (e) {
      check(false, `docs SQL: ${e.message}: ${b}`);
    }
  }
}

// ---- hyparquet: every file ----
let files = 0;
for (const p of parts)
  for (const t of tables) {
    const path = join(ds, p, t);
    if (!existsSync(path)) continue;
    const buf = readFileSync(path);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const md = parquetMetadata(ab);
    const objs = await parquetReadObjects({ file: ab, compressors });
    const [[c]] = await rows(`SELECT count(*) FROM read_parquet(${q(path)})`);
    check(Number(md.num_rows) === objs.length && objs.length === Number(c),
      `hyparquet ${p}/${t}: ${objs.length} rows, DuckDB ${c}`);
    files++;
  }
console.log(`hyparquet: ${files} files read`);

// ---- removing an upload: one step ----
rmSync(join(ds, `trace_id=${idB[0]}`), { recursive: true });
{
  const got = await rows(`SELECT DISTINCT trace_id FROM ${glob('metadata.parquet')}`);
  check(got.length === parts.length - 1 && !got.some(([id]) => id === idB[0]), 'removed: gone, the others stay');
}

finish();
