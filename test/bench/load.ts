/**
 * End-to-end load through the local gateway (its own process, like a deployed stage), beside the minimal
 * node:http server doing the same DynamoDB calls, and the exactness of a 60-per-minute plan under 600
 * concurrent requests from 20 keys.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../../infra/local/dynamodb-local.js';
import { sleep } from '../support/sleep.js';

export type LoadResult = {
  server: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  /** The server process's CPU per request, every thread's (V8's helpers; worker instances with LAMBDA_INSTANCES > 1). */
  cpuMsPerRequest: number;
  /** Each slice's requests a second and CPU ms per request, in the order run: the warm-up and the noise, visible. */
  slices: string;
  /** Each warm-up turn's requests a second (`warmUp`), in the order run, and how the warm-up ended. */
  warmUp: string;
};

/**
 * A process's CPU time so far in ms, user and system, from /proc (Linux; NaN elsewhere). In clock ticks, which Linux
 * sets at 100 a second: over a slice of thousands of requests, fine enough.
 */
export function cpuMs(pid: number | undefined): number {
  const stat = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(stat)) return Number.NaN;
  // The fields after the command name (which may hold spaces, inside parentheses): utime and stime are 14 and 15.
  const text = readFileSync(stat, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startChild(script: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    // The gateway's throttles off: the bench measures the service, not the throttles in front of it.
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'WARN', GATEWAY_THROTTLES: 'off' },
    stdio: ['ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

function cannon(url: string, apiKey: string, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, duration: seconds, connections: 16, headers: { authorization: `Bearer ${apiKey}` } }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** The slices of one server, as one result: requests over the whole time; p50 the slices' median, p99 their worst. */
function summarise(server: string, slices: autocannon.Result[], seconds: number, cpu: number[], warm: string): LoadResult {
  const sum = (pick: (r: autocannon.Result) => number) => slices.reduce((total, r) => total + pick(r), 0);
  const p50s = slices.map((r) => r.latency.p50).sort((a, b) => a - b);
  return {
    server,
    requestsPerSecond: sum((r) => r.requests.total) / seconds,
    // The median: of an even count (SLICES), the mean of the middle two.
    p50Ms: ((p50s[Math.floor((p50s.length - 1) / 2)] ?? 0) + (p50s[Math.floor(p50s.length / 2)] ?? 0)) / 2,
    p99Ms: Math.max(...slices.map((r) => r.latency.p99)),
    total: sum((r) => r.requests.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors + r.timeouts),
    cpuMsPerRequest: cpu.reduce((a, b) => a + b, 0) / sum((r) => r.requests.total),
    slices: slices
      .map((r, i) => `${Math.round((r.requests.total * SLICES) / seconds)} (${((cpu[i] ?? Number.NaN) / r.requests.total).toFixed(2)})`)
      .join(', '),
    warmUp: warm,
  };
}

/**
 * A key of a new Enterprise customer whose limits no load run reaches: every slice and warm-up turn takes one, so
 * neither server's requests meet the other's or a per-minute limit. Imported on call: the handlers' configuration is
 * read at load, after the bench has set it.
 */
export async function loadApiKey(): Promise<string> {
  const { makeCustomer } = await import('../support/customers.js');
  return (await makeCustomer('enterprise', { perMinute: 30_000, perDay: 1_000_000_000 })).apiKey;
}

const WARM_TURN_SECONDS = 3;
/** A turn no faster than this times the one before it ends the warm-up (a dip as well). */
const WARM_HELD = 1.05;

/**
 * Both servers in turns of WARM_TURN_SECONDS until each one's last turn is no faster than WARM_HELD times its turn
 * before (two turns at least, unless `maxTurns` is 1; `maxTurns` at most): DynamoDB Local's JIT warms under load for
 * longer than one turn (one run's slices after a turn of 3 s went from 485 to 758 requests a second). Each server's
 * turns, requests a second, and how the warm-up ended.
 */
async function warmUp(urls: string[], newApiKey: () => Promise<string>, maxTurns: number): Promise<string[]> {
  const turns: number[][] = urls.map(() => []);
  const held = (rates: number[]) => rates.length >= 2 && (rates.at(-1) ?? 0) <= (rates.at(-2) ?? 0) * WARM_HELD;
  while (turns.some((rates) => rates.length < maxTurns && !held(rates))) {
    for (const [i, url] of urls.entries()) {
      const result = await cannon(url, await newApiKey(), WARM_TURN_SECONDS);
      if (result.non2xx || result.errors) throw new Error(`warm-up of ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      turns[i]?.push(Math.round(result.requests.total / WARM_TURN_SECONDS));
    }
  }
  const ending = (rates: number[]) => (maxTurns === 1 ? 'one turn' : held(rates) ? 'held' : 'at the cap, not held');
  return turns.map((rates) => `${rates.join(', ')} (${ending(rates)})`);
}

/** Measured slices per server: a power of two, for the order below. */
const SLICES = 8;

/**
 * Which server takes slice k of 2 × SLICES: the Thue–Morse sequence (A B B A B A A B …, the parity of k's 1 bits),
 * whose two sets of positions have equal sums, sums of squares and of cubes, so a drift through the section (DynamoDB
 * Local's JIT still warming, other work on a shared machine) that is a polynomial of up to the third degree hits both
 * servers alike. ABBA order (4 slices each) cancelled only a straight drift: in a one-off A/A script's first runs after
 * DynamoDB Local started, two gateways of one tree read 0.908 to 1.048 of each other, 1.008 to 1.023 in this order.
 */
const sliceServer = (k: number): number => {
  let ones = 0;
  for (let bits = k; bits; bits >>= 1) ones += bits & 1;
  return ones % 2;
};

/**
 * Both servers under the same load, `seconds` each: `warmUp`, then 2 × SLICES slices in `sliceServer`'s order (two
 * cores: never both at once). Every slice has a customer of its own (`newApiKey`), so neither server's requests meet
 * the other's or a per-minute limit. `baseline`: the second server, the minimal server unless an A/A run (load-aa.ts)
 * names the gateway again.
 */
export async function endToEnd(
  env: Record<string, string>,
  newApiKey: () => Promise<string>,
  seconds: number,
  warmTurns: number,
  baseline = { script: './minimal-server.ts', name: 'minimal node:http, same DynamoDB calls' },
): Promise<LoadResult[]> {
  const gateway = await startChild('../../infra/local/serve.ts', { ...env, AUTHORIZER_CACHE_TTL: '60' });
  const second = await startChild(baseline.script, { ...env, AUTHORIZER_CACHE_TTL: '60' });
  const servers = [gateway, second];
  try {
    const warm = await warmUp(
      servers.map((server) => `${server.url}/v1/categories`),
      newApiKey,
      warmTurns,
    );
    const slices: autocannon.Result[][] = [[], []];
    const cpu: number[][] = [[], []];
    for (let k = 0; k < 2 * SLICES; k++) {
      const s = sliceServer(k);
      const server = servers[s] ?? gateway;
      const apiKey = await newApiKey();
      const before = cpuMs(server.child.pid);
      slices[s]?.push(await cannon(`${server.url}/v1/categories`, apiKey, seconds / SLICES));
      cpu[s]?.push(cpuMs(server.child.pid) - before);
    }
    return [
      summarise('local gateway + Middy handlers', slices[0] ?? [], seconds, cpu[0] ?? [], warm[0] ?? ''),
      summarise(baseline.name, slices[1] ?? [], seconds, cpu[1] ?? [], warm[1] ?? ''),
    ];
  } finally {
    gateway.child.kill();
    second.child.kill();
  }
}

export async function exactness(env: Record<string, string>, keys: string[], requests: number) {
  const gateway = await startChild('../../infra/local/serve.ts', { ...env, AUTHORIZER_CACHE_TTL: '60' });
  try {
    // Stay inside one UTC minute: the plan allows 60 per minute, not 60 per run.
    const secondsIntoMinute = new Date().getUTCSeconds();
    if (secondsIntoMinute > 45) await sleep((61 - secondsIntoMinute) * 1000);
    const statuses = await Promise.all(
      Array.from({ length: requests }, (_, i) =>
        fetch(`${gateway.url}/v1/categories`, { headers: { authorization: `Bearer ${keys[i % keys.length]}` } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    const histogram: Record<number, number> = {};
    for (const status of statuses) histogram[status] = (histogram[status] ?? 0) + 1;
    return { requests, keys: keys.length, histogram, admitted: histogram[200] ?? 0, serverErrors: statuses.filter((s) => s >= 500).length };
  } finally {
    gateway.child.kill();
  }
}
