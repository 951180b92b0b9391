/**
 * The warm cost of each operation of the tree given as argument, in this process: CPU per invocation
 * (`process.cpuUsage`; DynamoDB Local's JVM is another process) and the bench's warm overhead (handler time minus
 * DynamoDB wait, median). `[OPS=getPetById,...] [HOT_PATH_ENDPOINT=url] [HOT_PATH_PROFILE=prefix] npx tsx test/bench/hot-path.ts [root] [n]`;
 * test/bench/hot-path-compare.ts runs two trees in turn against one DynamoDB Local (docs/performance.md).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
// This tree's meter for either tree, so that both are measured alike.
import { DynamoMeter, percentile, waitingMs } from './dynamo-meter.js';

const root = resolve(process.argv[2] ?? '.');
const invocations = Number(process.argv[3] ?? 2000);
const from = (path: string) => import(`${root}/${path}`);

const { startDynamoLocal } = await from('infra/local/dynamodb-local.ts');
const { ensureTables } = await from('infra/local/tables.ts');
const { createDynamoClient } = await from('lib/dynamo/client.ts');
const { localTableNames } = await from('lib/dynamo/tables.ts');
const shared = process.env.HOT_PATH_ENDPOINT;
const dynamoLocal = shared ? { endpoint: shared, stop: async () => {} } : await startDynamoLocal();
// Tables of this process's own: a shared DynamoDB Local would otherwise list other runs' categories.
const tables = localTableNames('production', `hot-${process.pid}-`);
// The bench's settings (run.ts): a customer may create up to the cap, so every create is a create, not a refusal.
const settings = { STAGE: 'production', DYNAMODB_ENDPOINT: dynamoLocal.endpoint, LOG_LEVEL: 'WARN', CATEGORY_ALLOWANCE: '1000' };
Object.assign(process.env, { ...settings, ...tables });
const admin = createDynamoClient(dynamoLocal.endpoint);
await ensureTables(admin, tables);
// As the bench does: a new categories table every 900 creates, under the environment's cap of 1,000.
const resetCategories = async () => {
  await admin.send(new DeleteTableCommand({ TableName: tables.CATEGORIES_TABLE }));
  await ensureTables(admin, tables);
};

const clients = await from('lib/dynamo/client.ts');
const { addCategories, authorizerContext, events, LISTED_CATEGORIES, loadHandlers } = await from('test/bench/work.ts');
const { lambdaContext } = await from('infra/local/events.ts');
const meter = new DynamoMeter();
meter.attach((clients.documentClient ?? clients.dynamoClient)());
const handlers = await loadHandlers();
await addCategories(handlers, LISTED_CATEGORIES); // listCategories lists as many as in the bench's tables
// The warm section's customer (work.ts): 30,000 a minute, counted on one item; at 1,000,000 it was on 20 (shards.ts).
const e = events(authorizerContext('hot-path', 30_000, 1_000_000_000));

const rows: Record<string, number | string>[] = [];
const all = ['getPetById', 'listStoreOrders', 'listCategories', 'createCategory'] as const;
const chosen = process.env.OPS?.split(',');
for (const operation of all.filter((o) => !chosen || chosen.includes(o))) {
  const overheads: number[] = [];
  let dynamoCalls = 0;
  const statuses: Record<number, number> = {};
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      if (operation === 'createCategory' && i % 900 === 0) await resetCategories();
      const event = e[operation]();
      const context = lambdaContext(operation, event.requestContext.requestId);
      meter.take();
      const start = performance.now();
      const result = await handlers[operation](event, context);
      const end = performance.now();
      const calls = meter.take();
      dynamoCalls += calls.length;
      overheads.push(end - start - waitingMs(calls));
      statuses[result.statusCode] = (statuses[result.statusCode] ?? 0) + 1;
      if (result.statusCode >= 500 && result.statusCode !== 501) throw new Error(`${operation}: ${result.statusCode}`);
    }
  };
  await run(Number(process.env.WARMUP ?? 300));
  overheads.length = 0;
  dynamoCalls = 0;
  for (const status of Object.keys(statuses)) delete statuses[Number(status)];
  // HOT_PATH_PROFILE=<prefix>: a CPU profile of the measured invocations alone, <prefix>.<operation>.cpuprofile.
  const profiling = process.env.HOT_PATH_PROFILE ? new Session() : undefined;
  if (profiling) {
    profiling.connect();
    await profiling.post('Profiler.enable');
    await profiling.post('Profiler.start');
  }
  const before = process.cpuUsage();
  await run(invocations);
  const used = process.cpuUsage(before);
  if (profiling) {
    const { profile } = await profiling.post('Profiler.stop');
    writeFileSync(`${process.env.HOT_PATH_PROFILE}.${operation}.cpuprofile`, JSON.stringify(profile));
    profiling.disconnect();
  }
  rows.push({
    operation,
    userUsPerCall: Math.round(used.user / invocations),
    systemUsPerCall: Math.round(used.system / invocations),
    overheadMedianUs: Math.round(percentile(overheads, 50) * 1000),
    dynamoCallsPerCall: dynamoCalls / invocations,
    statuses: JSON.stringify(statuses),
  });
}
console.log(JSON.stringify({ root, invocations, rows }));
await dynamoLocal.stop();
process.exit(0);
