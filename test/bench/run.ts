/**
 * `npm run bench`: speed and cost figures, printed as tables, written to bench-results.json and, as Markdown, to
 * docs/performance-figures.md (`--quick` writes only bench-results.json, `--cold` neither). Every figure is set
 * beside what it is compared with in the same run, because absolute times drift on shared machines. Nothing here
 * asserts a time; the goals are reported as met or not, and the last line counts them.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { authorizerEvent, proxyEvent as buildEvent } from '../../infra/local/events.js';
import { ensureTables } from '../../infra/local/tables.js';
import { benchEnvironment } from './bench-environment.js';
import { type FiguresSection, figuresMarkdown } from './figures-markdown.js';
import { roundedDown, roundedUp } from './goal-figure.js';
import type { LoadResult } from './load.js';
import type { Overhead } from './work.js';

const quick = process.argv.includes('--quick');
const coldOnly = process.argv.includes('--cold');
const hotOnly = process.argv.includes('--hot');
const settings = {
  coldRuns: quick ? 3 : 25,
  warmInvocations: quick ? 100 : 2_000,
  loadSeconds: quick ? 5 : 30,
  loadWarmTurns: quick ? 1 : 8,
  exactRequests: 600,
  limiterSamples: quick ? 30 : 200,
  limiterRounds: quick ? 1 : 3,
};

const { dynamoLocal, tables, env, admin } = await benchEnvironment('bench-');

// Handler modules read their configuration at load: import them only now.
const { documentClient, authorizerDocumentClient } = await import('../../lib/dynamo/client.js');
const { DynamoMeter } = await import('./dynamo-meter.js');
const { addCategories, authorizerContext, events, LISTED_CATEGORIES, loadHandlers, warmOverhead, workPerRequest } = await import(
  './work.js'
);
const { endToEnd, exactness, loadApiKey } = await import('./load.js');
const { coldStarts, coldGoals } = await import('./cold-start.js');
const { compareLimiters, limiterGoals } = await import('./limiters.js');
const { statusCalls, statusGoals } = await import('./status-calls.js');
const { costPerMillion, PRICES } = await import('./prices.js');
const { makeCustomer, addKey } = await import('../support/customers.js');

const meter = new DynamoMeter();
meter.attach(documentClient());
// The authorizer has a client of its own (lib/dynamo/client.ts): metered too, or its cache miss reads as free.
meter.attach(authorizerDocumentClient());
const handlers = await loadHandlers();
const results: Record<string, unknown> = { settings, machine: { node: process.version, cpus: cpus().length } };
/** Every table printed, for docs/performance-figures.md. */
const sections: FiguresSection[] = [];

/** The run's last line. */
function goalsLine(goals: readonly { met: boolean }[]): string {
  const met = goals.filter((g) => g.met).length;
  return `goals: ${met} met, ${goals.length - met} missed`;
}

function table(title: string, rows: Record<string, unknown>[]): void {
  sections.push({ title, rows });
  console.log(`\n${title}`);
  console.table(
    rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toFixed(3)) : v]))),
  );
}

// The customer of the authorizer's requests (cold start and DynamoDB work)
const keyed = await makeCustomer('enterprise', { perMinute: 20_000, perDay: 1_000_000_000 });
const authorizerRequest = authorizerEvent(buildEvent({ headers: { Authorization: keyed.authorization } }));

const resetCategories = async () => {
  await admin.send(new DeleteTableCommand({ TableName: tables.CATEGORIES_TABLE }));
  await ensureTables(admin, tables);
};

// 1. Cold start (run after the sections below unless alone). A cold listCategories lists what the table holds, so
// the table is set to the same categories first, whatever ran before (the warm section leaves hundreds).
async function coldStartSection() {
  await resetCategories();
  await addCategories(handlers, LISTED_CATEGORIES);
  // Keyed by function name; an event that takes an Idempotency-Key gets one of its own.
  const coldEvents: Record<string, () => unknown> = Object.fromEntries(
    Object.entries(events(authorizerContext('bench-cold', 20_000, 1_000_000_000))).map(([op, make]) => [
      op.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase(),
      () => make(`bench-cold-${op}`),
    ]),
  );
  coldEvents.authorizer = () => authorizerRequest;
  const cold = await coldStarts(coldEvents, { endpoint: dynamoLocal.endpoint, tables }, settings.coldRuns);
  results.coldStart = cold;
  table(
    `Cold start: import + first invocation, median of ${settings.coldRuns} fresh processes, cdk.out bundle vs the floor of its own DynamoDB calls, vs NodejsFunction defaults and (information) vs a GetItem-only bundle, on Node.js 24`,
    cold,
  );
  return cold;
}

// 3. Warm overhead
async function overheadSection() {
  const overhead = await warmOverhead(handlers, meter, settings.warmInvocations, resetCategories);
  results.overhead = overhead;
  table(`Warm overhead: handler time minus DynamoDB wait, ${settings.warmInvocations} invocations each`, overhead);
  return overhead;
}

function overheadGoal(overhead: Overhead[]) {
  return {
    goal: 'warm overhead median at most 0.4 ms',
    met: overhead.every((o) => o.overheadMedianMs <= 0.4),
    figure: `worst ${roundedUp(Math.max(...overhead.map((o) => o.overheadMedianMs)), 3)} ms`,
  };
}

// 4. End-to-end load: GET /v1/categories lists the same categories as in the sections above.
async function loadSection() {
  await resetCategories();
  await addCategories(handlers, LISTED_CATEGORIES);
  const load = await endToEnd(env, loadApiKey, settings.loadSeconds, settings.loadWarmTurns);
  results.load = load;
  table(
    `End to end with autocannon, GET /v1/categories (${LISTED_CATEGORIES} categories), ${settings.loadSeconds} s each in 8 slices in Thue–Morse order (A B B A B A A B …), 16 connections, after warm-up turns in turns until each server's rate stops rising (warmUp: requests a second, and how it ended); slices: requests a second (CPU ms a request) of each, in the order run`,
    load,
  );
  return load;
}

function loadGoal(load: LoadResult[]) {
  const [ours, minimal] = [load[0]?.requestsPerSecond ?? 0, load[1]?.requestsPerSecond ?? 1];
  return {
    goal: 'load: at least 0.9 of the minimal server',
    met: ours / minimal >= 0.9,
    figure: `${roundedDown(ours / minimal, 3)} × (${ours.toFixed(0)} vs ${minimal.toFixed(0)} req/s)`,
  };
}

if (hotOnly) {
  // `npm run bench -- --hot`: the warm overhead and the end-to-end load alone, with their goals, writing nothing.
  // DynamoDB Local is warmed first by unused warm invocations, as the full run's earlier sections warm it.
  await warmOverhead(handlers, meter, quick ? 100 : 500, resetCategories);
  const goals = [overheadGoal(await overheadSection()), loadGoal(await loadSection())];
  table('Goals', goals);
  await dynamoLocal.stop();
  console.log(goalsLine(goals));
  process.exit(0);
}

if (coldOnly) {
  // `npm run bench -- --cold`: only the cold starts, for working on them (about a minute with --quick). DynamoDB
  // Local's JVM compiles its hot paths over its first thousands of requests, and DynamoDB on AWS is always warm: the
  // full run's sections before the cold starts warm it, and alone the warm invocations of section 3 do (their
  // figures unused), so that the functions measured first are not the ones that pay for a cold database.
  await warmOverhead(handlers, meter, quick ? 100 : 500, resetCategories);
  const goals = coldGoals(await coldStartSection());
  table('Goals', goals);
  await dynamoLocal.stop();
  console.log(goalsLine(goals));
  process.exit(0);
}

// 2. DynamoDB work per request
const work = await workPerRequest(handlers, meter, authorizerRequest);
results.work = work;
table('DynamoDB work per request (SDK middleware + ReturnConsumedCapacity)', work);

// 2b. GET /rate-limit's calls over time, not banned and banned, on one warm instance
const status = await statusCalls(handlers, meter);
results.statusCalls = status;
table(
  "GET /rate-limit's DynamoDB calls on one warm instance, on the bench's clock: many requests within a second, across seconds, at once, and during a ban",
  status as unknown as Record<string, unknown>[],
);

const overhead = await overheadSection();

const cold = await coldStartSection();

const load = await loadSection();

// 5. Exactness under load
const free = await makeCustomer('free');
const keys = [free.apiKey];
for (let i = 1; i < 20; i++) keys.push((await addKey(free.customerId)).apiKey);
const exact = await exactness(env, keys, settings.exactRequests);
results.exactness = exact;
table('Exactness: one Free customer (60/min), 20 keys, concurrent requests', [exact]);

// 6. The rate limiter beside rate-limiter-flexible
const limiters = await compareLimiters({
  endpoint: dynamoLocal.endpoint,
  countersTable: tables.COUNTERS_TABLE,
  admin,
  samples: settings.limiterSamples,
  rounds: settings.limiterRounds,
});
results.limiters = { summaries: limiters.summaries, bursts: limiters.raw.bursts };
table(
  `Rate limiter beside rate-limiter-flexible (RateLimiterDynamo, minute + day, inMemoryBlockOnConsumed), same DynamoDB Local; ${settings.limiterSamples} sequential samples, ${settings.limiterRounds} burst round(s)`,
  limiters.rows,
);

// 7. Cost per million requests
const memoryMb = 512;
const authorizerRow = work.find((w) => w.scenario.startsWith('authorizer'));
const byScenario = (prefix: string) => work.find((w) => w.scenario.startsWith(prefix));
const overheadOf = (op: string) => overhead.find((o) => o.operation === op);
const cost = (['listCategories', 'createCategory', 'getRateLimitStatus'] as const).map((op) => {
  const w = byScenario(op);
  const o = overheadOf(op);
  const durationMs = o?.handlerMedianMs ?? 0;
  const authorizerShare = 0.05; // at most one cache miss per key per TTL; 5% is a busy client's worst plausible share
  const c = costPerMillion({
    durationMs,
    memoryMb,
    readUnits: (w?.readUnits ?? 0) + authorizerShare * (authorizerRow?.readUnits ?? 0),
    writeUnits: w?.writeUnits ?? 0,
    invocations: 1 + authorizerShare,
  });
  return { operation: op, durationMs, readUnits: w?.readUnits, writeUnits: w?.writeUnits, ...c };
});
results.cost = { prices: PRICES, memoryMb, rows: cost };
table('Cost per million requests, US$ (us-east-1 on-demand prices in test/bench/prices.ts; 5% authorizer cache misses)', cost);

// Goals
const list = byScenario('listCategories');
const create = byScenario('createCategory');
const counting = list?.writeUnits ?? Number.NaN;
const goals = [
  ...coldGoals(cold),
  {
    goal: 'admitted list: 1 sequential round trip',
    met: list?.sequential === 1,
    figure: `${list?.sequential} round trip(s), ${list?.calls} calls`,
  },
  { goal: 'admitted list: at most 1 write unit for counting', met: counting <= 1, figure: `${counting} WCU` },
  { goal: 'create: at most 3 calls', met: (create?.calls ?? 99) <= 3, figure: `${create?.calls} calls` },
  overheadGoal(overhead),
  loadGoal(load),
  {
    goal: 'exactness: 60 admitted of 600, no 5xx',
    met: exact.admitted === 60 && exact.serverErrors === 0,
    figure: `${exact.admitted} admitted, ${exact.serverErrors} 5xx`,
  },
];
const rateLimiterGoals = [...statusGoals(status), ...limiterGoals(limiters)];
const allGoals = [...goals, ...rateLimiterGoals];
results.goals = allGoals;
table('Goals', goals);
table('Goals of the rate limiter', rateLimiterGoals);

writeFileSync('bench-results.json', `${JSON.stringify(results, null, 2)}\n`);
if (quick) {
  // A smoke run's few samples are not figures to commit: the committed page keeps the last full run's.
  console.log('\nwrote bench-results.json (a --quick run leaves docs/performance-figures.md as it is)');
} else {
  // The goals first: they are what a reader looks for.
  const goalSections = sections.filter((s) => s.title.startsWith('Goals'));
  const figures = figuresMarkdown({
    date: new Date(),
    node: process.version,
    cpus: cpus().length,
    sections: [...goalSections, ...sections.filter((s) => !goalSections.includes(s))],
  });
  writeFileSync(new URL('../../docs/performance-figures.md', import.meta.url), figures);
  console.log('\nwrote bench-results.json and docs/performance-figures.md');
}
admin.destroy();
await dynamoLocal.stop();
console.log(goalsLine(allGoals));
process.exit(0);
