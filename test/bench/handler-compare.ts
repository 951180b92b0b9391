/**
 * listCategories' handler beside the minimal server's two calls (minimal-calls.ts: the counter's UpdateItem and the
 * categories Query), in this process, 16 at a time as under the load: CPU µs per request, blocks in ABBA order.
 * No HTTP server and no gateway: what the handler costs against the same calls made bare (docs/performance.md).
 * `npx tsx test/bench/handler-compare.ts [rounds] [requests a block]`; BENCH_REPLAY=1 replays DynamoDB's answers
 * (replay-dynamodb.ts), which leaves the two sides' own CPU alone.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { lambdaContext } from '../../infra/local/events.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { benchEnvironment } from './bench-environment.js';
import { percentile } from './dynamo-meter.js';
import { listCategoriesBare } from './minimal-calls.js';

const rounds = Number(process.argv[2] ?? 6);
const perBlock = Number(process.argv[3] ?? 3000);
// The replay patches the HTTP handler every client sends through (replay-dynamodb.ts).
if (process.env.BENCH_REPLAY === '1') await import('./replay-dynamodb.js');
const { dynamoLocal, env } = await benchEnvironment('handlers-');
const { addCategories, authorizerContext, events, LISTED_CATEGORIES, loadHandlers } = await import('./work.js');
const handlers = await loadHandlers();
await addCategories(handlers, LISTED_CATEGORIES);
const event = events(authorizerContext('handler-compare', 30_000, 1_000_000_000)).listCategories;
const db = DynamoDBDocumentClient.from(createDynamoClient(env.DYNAMODB_ENDPOINT));

async function handler(): Promise<void> {
  const e = event();
  const result = await handlers.listCategories(e, lambdaContext('list-categories', e.requestContext.requestId));
  if (result.statusCode !== 200) throw new Error(`listCategories answered ${result.statusCode}`);
}

/** The minimal server's calls for an admitted request, and its body (minimal-calls.ts). */
async function bare(): Promise<void> {
  const { status } = await listCategoriesBare(db, { customerId: 'handler-compare-bare', perMinute: 30_000, perDay: 1_000_000_000 });
  if (status !== 200) throw new Error('the bare calls were refused');
}

/** CPU µs per request of `n` requests, 16 at a time. */
async function block(run: () => Promise<void>, n: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i += 16) await Promise.all(Array.from({ length: 16 }, run));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

await block(handler, 2000);
await block(bare, 2000);
const seen = { handler: [] as number[], bare: [] as number[] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? (['bare', 'handler'] as const) : (['handler', 'bare'] as const);
  for (const name of order) seen[name].push(Math.round(await block(name === 'handler' ? handler : bare, perBlock)));
}
console.log(`CPU µs per request, median of ${rounds} blocks of ${perBlock} (every block)`);
for (const [name, runs] of Object.entries(seen)) console.log(`${name}\t${percentile(runs, 50)}\t${runs.join(',')}`);
await dynamoLocal.stop();
process.exit(0);
