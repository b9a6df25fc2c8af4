// What the node checks share: a tally of checks, and `tracebound stats`
// counts per "system:name".
import { execFileSync } from 'node:child_process';

export const tally = { passed: 0, failed: 0 };
export function check(ok, what) {
  if (ok) tally.passed++;
  else { tally.failed++; console.log(`FAIL: ${what}`); }
}
// "N passed, N failed", exit 1 on any failure
export function finish() {
  console.log(`${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed ? 1 : 0);
}

export function statsCounts(cli, file) {
  const text = execFileSync(cli, ['stats', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const m = new Map();
  for (const line of text.split('\n')) {
    const r = /^\s+(\d+)\s+(\S+):(\S+)$/.exec(line);
    if (r) m.set(`${r[2]}:${r[3]}`, (m.get(`${r[2]}:${r[3]}`) ?? 0) + Number(r[1]));
  }
  return m;
}
