/**
 * load.ts's end-to-end load for work on the local gateway: two trees' gateways and the minimal server in turns against
 * one DynamoDB Local, requests a second and CPU per request. `npx tsx test/bench/load-compare.ts <A> <B> [rounds] [s]`;
 * LOAD_PROFILE=<dir>: --cpu-prof; LOAD_STUB=1: the gateways' own layers, beside a bare server sending the same answer
 * (gateway-stub-server.ts); LOAD_REPLAY=1: DynamoDB's answers replayed (replay-dynamodb.ts); LOAD_PIN=1: the servers
 * on the second CPU, the rest on the first.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../../infra/local/dynamodb-local.js';
import { benchEnvironment } from './bench-environment.js';
import { percentile } from './dynamo-meter.js';
import { cpuMs, loadApiKey } from './load.js';

const [a, b] = [resolve(process.argv[2] ?? '.'), resolve(process.argv[3] ?? '.')];
const rounds = Number(process.argv[4] ?? 5);
const seconds = Number(process.argv[5] ?? 5);
const pin = process.env.LOAD_PIN === '1';
// Before DynamoDB Local starts, which inherits the first CPU; each server is moved to the second once started.
if (pin) execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', '0', String(process.pid)]);
const { dynamoLocal, env } = await benchEnvironment('loadab-');
const { addCategories, LISTED_CATEGORIES, loadHandlers } = await import('./work.js');
await addCategories(await loadHandlers(), LISTED_CATEGORIES);
const replay = process.env.LOAD_REPLAY === '1' ? ['--import', resolve('test/bench/replay-dynamodb.ts')] : [];

async function start(
  name: string,
  cwd: string,
  script: string,
  args: string[] = [],
): Promise<{ name: string; url: string; child: ChildProcess }> {
  const port = await freePort();
  const profile =
    process.env.LOAD_PROFILE && name !== 'minimal' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.LOAD_PROFILE}/${name}`] : [];
  const child = fork(resolve(cwd, script), args, {
    cwd,
    execArgv: ['--import', 'tsx', ...replay, ...profile],
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'WARN', GATEWAY_THROTTLES: 'off', AUTHORIZER_CACHE_TTL: '60' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((done, fail) => {
    child.once('message', () => done());
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}`)));
  });
  if (pin) execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', '1', String(child.pid)]);
  return { name, url: `http://127.0.0.1:${port}/v1/categories`, child };
}

const cannon = (url: string, apiKey: string, s: number) =>
  new Promise<autocannon.Result>((done, fail) =>
    autocannon({ url, duration: s, connections: 16, headers: { authorization: `Bearer ${apiKey}` } }, (error, result) =>
      error ? fail(error) : done(result),
    ),
  );

const stub = process.env.LOAD_STUB === '1';
const servers = stub
  ? [
      await start('A', a, resolve('test/bench/gateway-stub-server.ts'), [a]),
      await start('B', b, resolve('test/bench/gateway-stub-server.ts'), [b]),
      await start('bare', a, resolve('test/bench/gateway-stub-server.ts'), ['bare']),
    ]
  : [
      await start('A', a, 'infra/local/serve.ts'),
      await start('B', b, 'infra/local/serve.ts'),
      await start('minimal', resolve('.'), 'test/bench/minimal-server.ts'),
    ];
const seen = new Map<string, { rps: number[]; cpu: number[] }>(servers.map((s) => [s.name, { rps: [], cpu: [] }]));
try {
  for (const server of servers) await cannon(server.url, await loadApiKey(), 3);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...servers].reverse() : servers;
    for (const server of order) {
      const key = await loadApiKey();
      const before = cpuMs(server.child.pid);
      const result = await cannon(server.url, key, seconds);
      const cpu = cpuMs(server.child.pid) - before;
      if (result.non2xx || result.errors) throw new Error(`${server.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      seen.get(server.name)?.rps.push(Math.round(result.requests.total / seconds));
      seen.get(server.name)?.cpu.push(Number((cpu / result.requests.total).toFixed(3)));
      console.error(
        `round ${round + 1} ${server.name}: ${Math.round(result.requests.total / seconds)} req/s, ${(cpu / result.requests.total).toFixed(3)} ms CPU/request`,
      );
    }
  }
} finally {
  // SIGINT: serve.ts stops cleanly, so that --cpu-prof writes its profile.
  for (const server of servers) server.child.kill('SIGINT');
  await new Promise((done) => setTimeout(done, 3000));
  await dynamoLocal.stop();
}
console.log(`A = ${a}\nB = ${b}\nserver\treq/s median\tCPU ms/request median\treq/s runs\tCPU runs`);
for (const [name, { rps, cpu }] of seen)
  console.log([name, percentile(rps, 50), percentile(cpu, 50), rps.join(','), cpu.join(',')].join('\t'));
process.exit(0);
