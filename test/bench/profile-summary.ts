/**
 * Self time of a V8 .cpuprofile (from `node --cpu-prof`), by module and by function, in µs per call:
 * `npx tsx test/bench/profile-summary.ts <file.cpuprofile> <calls> [top]`. A module is a package under
 * node_modules, a file of the tree, or Node's own (node:...); used for docs/performance.md's warm profile.
 */
import { readFileSync } from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const [file, callsArg, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> <calls> [top]');
const calls = Number(callsArg ?? 1);
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));

function moduleOf(url: string): string {
  if (!url) return '(V8/native)';
  if (url.startsWith('node:')) return 'node:';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1] ?? url;
  const own = /\/((?:lib|functions|infra|test)\/.*?)(?:\?.*)?$/.exec(url);
  return own?.[1] ?? url;
}
const group = (key: (n: Node) => string) => {
  const totals = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node) totals.set(key(node), (totals.get(key(node)) ?? 0) + us);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
};
const print = (title: string, rows: [string, number][]) => {
  console.log(`\n${title}`);
  for (const [name, us] of rows.slice(0, top)) console.log(`${(us / calls).toFixed(1).padStart(8)} µs  ${name}`);
};
const area = (n: Node) => {
  const m = moduleOf(n.callFrame.url);
  if (/^(lib|functions)\//.test(m)) return 'ours (lib, functions)';
  if (m.startsWith('@aws-sdk') || m.startsWith('@smithy') || m.startsWith('@aws-crypto')) return 'AWS SDK';
  return m.startsWith('@aws-lambda-powertools') ? 'Powertools' : m;
};
print('self time by area, µs per call', group(area));
print(
  'self time by module, µs per call',
  group((n) => moduleOf(n.callFrame.url)),
);
print(
  'self time by function, µs per call',
  group((n) => `${n.callFrame.functionName || '(anonymous)'} ${moduleOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`),
);
