/**
 * CPU per warm invocation of each operation, in this process (DynamoDB Local's JVM is another process), for the
 * tree given as argument: `[OPS=getPetById,...] npx tsx test/bench/hot-path.ts [root] [invocations]`. CPU time, unlike wall time, does
 * not count waiting, so runs of two trees taken in turn on a loaded machine compare (docs/performance.md).
 */
import { resolve } from 'node:path';

const root = resolve(process.argv[2] ?? '.');
const invocations = Number(process.argv[3] ?? 2000);
const from = (path: string) => import(`${root}/${path}`);

const { startDynamoLocal } = await from('infra/local/dynamodb-local.ts');
const { ensureTables } = await from('infra/local/tables.ts');
const { createDynamoClient } = await from('lib/dynamo/client.ts');
const { localTableNames } = await from('lib/dynamo/tables.ts');
const dynamoLocal = await startDynamoLocal();
const tables = localTableNames('production', 'hot-');
Object.assign(process.env, { STAGE: 'production', DYNAMODB_ENDPOINT: dynamoLocal.endpoint, LOG_LEVEL: 'WARN', ...tables });
await ensureTables(createDynamoClient(dynamoLocal.endpoint), tables);

const clients = await from('lib/dynamo/client.ts');
const { DynamoMeter } = await from('test/bench/dynamo-meter.ts');
const { authorizerContext, events, loadHandlers } = await from('test/bench/work.ts');
const { lambdaContext } = await from('infra/local/events.ts');
const meter = new DynamoMeter();
meter.attach((clients.documentClient ?? clients.dynamoClient)());
const handlers = await loadHandlers();
const e = events(authorizerContext('hot-path', 1_000_000, 1_000_000_000));

const rows: Record<string, number | string>[] = [];
const all = ['getPetById', 'listStoreOrders', 'listCategories', 'createCategory'] as const;
const chosen = process.env.OPS?.split(',');
for (const operation of all.filter((o) => !chosen || chosen.includes(o))) {
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const event = e[operation]();
      const result = await handlers[operation](event, lambdaContext(operation, event.requestContext.requestId));
      if (result.statusCode >= 500 && result.statusCode !== 501) throw new Error(`${operation}: ${result.statusCode}`);
    }
  };
  await run(Number(process.env.WARMUP ?? 300));
  meter.take();
  const before = process.cpuUsage();
  await run(invocations);
  const used = process.cpuUsage(before);
  rows.push({
    operation,
    userUsPerCall: Math.round(used.user / invocations),
    systemUsPerCall: Math.round(used.system / invocations),
    dynamoCallsPerCall: meter.take().length / invocations,
  });
}
console.log(JSON.stringify({ root, invocations, rows }));
await dynamoLocal.stop();
process.exit(0);
