/**
 * The long load test (`npm run test:load`, not part of `npm test`): `npm start`'s entry as a child process on
 * free ports with its own DynamoDB Local, then LOAD_SECONDS (default 60) of mixed traffic with autocannon from
 * customers on every plan and from bad keys. It checks that no answer is a 5xx or a socket error, that each
 * customer's day counter equals the requests admitted for it, that the categories table holds exactly the
 * categories answered 201, and reports the production gateway's RSS at the start and the end.
 * Exits 1 when a check fails.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import * as v from 'valibot';
import { authAdmin } from '../../lib/auth/admin.js';
import { generateKey } from '../../lib/auth/keys.js';
import { CategorySchema } from '../../lib/categories/schema.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { localTableNames } from '../../lib/dynamo/tables.js';
import type { Limits, Plan } from '../../lib/plans.js';
import { admittedSince } from '../support/admitted.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { startLocal } from '../support/start-process.js';

const SECONDS = Number(process.env.LOAD_SECONDS ?? '60');
const dataDir = mkdtempSync(join(tmpdir(), 'petstore-load-'));
const failures: string[] = [];
const check = (ok: boolean, message: string) => {
  if (!ok) failures.push(message);
};

/** The gateway processes `npm start` forked (serve.ts), by the port they listen on. */
function gatewayPids(parent: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== parent) continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('serve.ts')) continue;
      const port = /(?:^|\0)PORT=(\d+)/.exec(readFileSync(`/proc/${entry}/environ`, 'utf8'))?.[1];
      if (port) found.set(port, Number(entry));
    } catch {
      // a process that ended while we looked
    }
  }
  return found;
}

function rssMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

interface Caller {
  label: string;
  customerId?: string;
  authorization?: string;
  connections: number;
  /** Requests per second; bad keys are answered so fast that, unbounded, they would crowd out the rest. */
  rate?: number;
}

type Kind = 'list' | 'create' | 'create-collide' | 'rate-limit' | 'bad-json' | 'bad-type';
const QUOTA_FREE: ReadonlySet<Kind> = new Set(['rate-limit']);

/** Counters are read from this UTC day on: a run across midnight counts in two days. */
const runStart = Date.now();
// The gateway's throttles off: the load test measures the service's exactness, not the throttles in front of it.
const local = await startLocal({ DATA_DIR: dataDir, LOG_LEVEL: 'WARN', GATEWAY_THROTTLES: 'off' });
const base = new URL(local.production).origin;
const client = createDynamoClient(`http://127.0.0.1:${local.env.DYNAMODB_PORT}`);
const db = DynamoDBDocumentClient.from(client);
const tables = localTableNames('production');
const auth = authAdmin(db, { customers: tables.CUSTOMERS_TABLE, keys: tables.KEYS_TABLE });

async function customer(plan: Plan, limits?: Limits): Promise<string> {
  const customerId = `load-${plan}-${randomUUID().slice(0, 6)}`;
  await auth.setPlan(customerId, plan, limits);
  return customerId;
}
async function key(customerId: string): Promise<string> {
  return `Bearer ${(await auth.createKey(customerId, 'production')).apiKey}`;
}

const free = await customer('free');
const pro = await customer('pro');
const business = await customer('business');
const enterprise = await customer('enterprise', { perMinute: 30_000, perDay: 100_000_000 });
const callers: Caller[] = [
  { label: 'free', customerId: free, authorization: await key(free), connections: 2 },
  { label: 'pro', customerId: pro, authorization: await key(pro), connections: 3 },
  { label: 'business', customerId: business, authorization: await key(business), connections: 3 },
  { label: 'enterprise key 1', customerId: enterprise, authorization: await key(enterprise), connections: 4 },
  { label: 'enterprise key 2', customerId: enterprise, authorization: await key(enterprise), connections: 4 },
  { label: 'unknown key', rate: 25, authorization: `Bearer ${generateKey('production')}`, connections: 1 },
  { label: 'staging key', rate: 25, authorization: `Bearer ${generateKey('staging')}`, connections: 1 },
  { label: 'malformed key', rate: 25, authorization: 'Bearer pet_live_short', connections: 1 },
  { label: 'no key', rate: 25, connections: 1 },
];

if (local.child.pid === undefined) throw new Error('npm start did not start');
const pids = gatewayPids(local.child.pid);
const gatewayPid = pids.get(local.env.PORT ?? '');
if (!gatewayPid) throw new Error(`no production gateway process found among ${[...pids]}`);
// Warm up (module loading, connection pools) so that the start figure is the steady state, not the cold start.
const warmUp = await key(await customer('enterprise', { perMinute: 1_000, perDay: 1_000 }));
for (let i = 0; i < 20; i++) await fetch(`${local.production}/categories`, { headers: { Authorization: warmUp } });
const rssStart = rssMb(gatewayPid);
const rssSamples: number[] = [rssStart];
const sampler = setInterval(() => rssSamples.push(rssMb(gatewayPid)), 5_000);

const counts = new Map<string, Map<Kind, Map<number, number>>>();
/** Requests sent, per caller and kind: autocannon drops the answers still in flight when the time is up. */
const sent = new Map<string, Map<Kind, number>>();
const created: { id: number; name: string }[] = [];

function requests(caller: Caller) {
  const byKind = new Map<Kind, Map<number, number>>();
  counts.set(caller.label, byKind);
  const sentByKind = new Map<Kind, number>();
  sent.set(caller.label, sentByKind);
  const track = (kind: Kind, body?: () => string) => (request: object) => {
    sentByKind.set(kind, (sentByKind.get(kind) ?? 0) + 1);
    return body ? { ...request, body: body() } : request;
  };
  const headers: Record<string, string> = caller.authorization ? { Authorization: caller.authorization } : {};
  const count = (kind: Kind) => (status: number, body: string) => {
    const statuses = byKind.get(kind) ?? new Map<number, number>();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    byKind.set(kind, statuses);
    if (status === 201) created.push(v.parse(CategorySchema, JSON.parse(body))); // a 201 carries the category as the contract says
  };
  const kind = (name: Kind, body?: string, contentType?: string) => ({
    method: name === 'list' || name === 'rate-limit' ? ('GET' as const) : ('POST' as const),
    path: name === 'rate-limit' ? '/v1/rate-limit' : '/v1/categories',
    headers: contentType ? { ...headers, 'Content-Type': contentType } : headers,
    ...(body ? { body } : {}),
    setupRequest: track(name, name === 'create' ? () => JSON.stringify({ name: `Load ${randomUUID()}` }) : undefined),
    onResponse: count(name),
  });
  return [
    kind('list'),
    kind('create', '{}', 'application/json'),
    kind('rate-limit'),
    kind('create-collide', '{"name":"Collision"}', 'application/json'),
    kind('bad-json', '{"name":', 'application/json'),
    kind('bad-type', 'Dog', 'text/plain'),
  ];
}

console.log(`load: ${SECONDS} s against ${local.production} from ${callers.length} callers; gateway pid ${gatewayPid}, RSS ${rssStart} MB`);
const results = await Promise.all(
  callers.map((caller) =>
    autocannon({
      url: base,
      connections: caller.connections,
      duration: SECONDS,
      timeout: 20,
      requests: requests(caller),
      ...(caller.rate ? { overallRate: caller.rate } : {}),
    }),
  ),
);
clearInterval(sampler);
const rssEnd = rssMb(gatewayPid);
rssSamples.push(rssEnd);

// What the service stored, against what the clients saw.
const statusTotals = new Map<number, number>();
let total = 0;
let socketErrors = 0;
let unanswered = 0;
let unansweredCreates = 0;
const rows: Record<string, string | number>[] = [];
for (const [i, caller] of callers.entries()) {
  const result = results[i];
  if (!result) continue;
  total += result.requests.total;
  socketErrors += result.errors + result.timeouts;
  const byKind = counts.get(caller.label) ?? new Map();
  const statuses = new Map<number, number>();
  let admitted = 0;
  let answered = 0;
  let unansweredQuota = 0;
  for (const [kind, n] of sent.get(caller.label) ?? new Map<Kind, number>()) {
    const answeredOfKind = [...(byKind.get(kind)?.values() ?? [])].reduce((a, b) => a + b, 0);
    if (!QUOTA_FREE.has(kind)) unansweredQuota += n - answeredOfKind;
    if (kind === 'create') unansweredCreates += n - answeredOfKind;
  }
  for (const [kind, kindStatuses] of byKind) {
    for (const [status, n] of kindStatuses) {
      answered += n;
      statuses.set(status, (statuses.get(status) ?? 0) + n);
      statusTotals.set(status, (statusTotals.get(status) ?? 0) + n);
      if (!QUOTA_FREE.has(kind) && status !== 401 && status !== 429) admitted += n;
    }
  }
  unanswered += (sent.get(caller.label) ? [...(sent.get(caller.label)?.values() ?? [])].reduce((a, b) => a + b, 0) : 0) - answered;
  rows.push({
    caller: caller.label,
    requests: result.requests.total,
    admitted,
    'in flight at stop': unansweredQuota,
    statuses: [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' '),
    'p99 ms': result.latency.p99,
  });
  check(result.errors === 0 && result.timeouts === 0, `${caller.label}: ${result.errors} errors, ${result.timeouts} timeouts`);
}
for (const [status, n] of statusTotals) check(status < 500, `${n} answers with status ${status}`);

// A request still in flight when autocannon stops was processed (and counted, or refused) by the service, but
// its answer was discarded: the stored counter is the admitted requests plus at most those.
const admittedBy = new Map<string, { admitted: number; inFlight: number }>();
for (const [i, caller] of callers.entries()) {
  if (!caller.customerId) continue;
  const sum = admittedBy.get(caller.customerId) ?? { admitted: 0, inFlight: 0 };
  sum.admitted += Number(rows[i]?.admitted ?? 0);
  sum.inFlight += Number(rows[i]?.['in flight at stop'] ?? 0);
  admittedBy.set(caller.customerId, sum);
}
const counterRows: Record<string, string | number>[] = [];
for (const [customerId, { admitted, inFlight }] of admittedBy) {
  const { Item } = await db.send(new GetCommand({ TableName: tables.COUNTERS_TABLE, Key: { customerId }, ConsistentRead: true }));
  const stored = admittedSince(Item, runStart);
  counterRows.push({
    customer: customerId,
    'admitted (answers seen)': admitted,
    'in flight at stop': inFlight,
    'day counter (stored)': stored,
  });
  check(
    stored >= admitted && stored <= admitted + inFlight,
    `${customerId}: counter ${stored} but ${admitted} admitted (+${inFlight} in flight)`,
  );
}

const table = await categoryIntegrity(db, tables.CATEGORIES_TABLE);
check(table.problems.length === 0, `categories table: ${table.problems.join('; ')}`);
const stored = new Map(table.categories.map((c) => [c.id, c.name]));
const lost = created.filter((c) => stored.get(c.id) !== c.name);
check(lost.length === 0, `${lost.length} categories answered 201 are not stored as answered`);
const extra = table.categories.length - created.length;
check(
  extra >= 0 && extra <= unansweredCreates,
  `${extra} stored categories were never answered 201 (${unansweredCreates} creates in flight)`,
);

client.destroy();
await local.stop();
rmSync(dataDir, { recursive: true, force: true });

console.table(rows);
console.table(counterRows);
console.log(
  [
    `requests: ${total} in ${SECONDS} s (${Math.round(total / SECONDS)}/s)`,
    `statuses: ${[...statusTotals]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ')}`,
    `socket errors and timeouts: ${socketErrors}; answers discarded by autocannon at the stop: ${unanswered}`,
    `categories: ${created.length} answered 201, ${table.categories.length} stored (${extra} created by requests in flight at the stop), data lost: ${lost.length}`,
    `gateway RSS: start ${rssStart} MB, end ${rssEnd} MB, max ${Math.max(...rssSamples)} MB (samples every 5 s: ${rssSamples.join(' ')})`,
  ].join('\n'),
);
if (failures.length) {
  console.error(`\nFAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`);
  process.exit(1);
}
console.log('\nload test passed');
