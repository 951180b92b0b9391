/**
 * What one pass of the usage sweep reads: N customers (argument, default 1,000), each with a counter item holding three
 * days and 13 months of history, in a DynamoDB Local of its own; prints the run and the next run. docs/performance.md.
 * Run: npx tsx test/bench/sweep-cost.ts 1000
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';
import { ensureTables } from '../../infra/local/tables.js';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import { localTableNames } from '../../lib/dynamo/tables.js';
import { ownerOfKey } from '../../lib/rate-limit/shards.js';
import { daySweep } from '../../lib/usage/day-sweep.js';

const N = Number(process.argv[2] ?? 1000);
const dynamo = await startDynamoLocal();
const client = createDynamoClient(dynamo.endpoint);
const names = localTableNames('production', 'measure-');
await ensureTables(client, names);
const db = createDocumentClient(client);
const table = names.COUNTERS_TABLE;
const today = Math.floor(Date.now() / 86_400_000) * 86_400;
const items: Record<string, unknown>[] = [];
for (let c = 0; c < N; c++) {
  const id = `cust-${String(c).padStart(6, '0')}`;
  const minute = Math.floor(Date.now() / 60_000) * 60;
  // The counter item after the day turned: today, yesterday and the day before (which the sweep moves).
  items.push({
    customerId: id,
    [`m${minute}`]: 12,
    [`m${minute - 60}`]: 40,
    [`d${today}`]: 812,
    [`d${today - 86_400}`]: 9412,
    [`d${today - 2 * 86_400}`]: 10000,
    [`x${today - 2 * 86_400}`]: 214,
    expiresAt: today + 401 * 86_400,
  });
  for (let m = 1; m <= 13; m++) {
    const month = new Date(Date.UTC(2026, 10 - m, 1)).toISOString().slice(0, 7);
    const h: Record<string, unknown> = { customerId: `usage#${id}#${month}`, expiresAt: today + 400 * 86_400 };
    for (let d = 1; d <= 30; d++) h[`a${String(d).padStart(2, '0')}`] = 5000 + d;
    h.r05 = 214;
    items.push(h);
  }
}
for (let i = 0; i < items.length; i += 25)
  await db.send(new BatchWriteCommand({ RequestItems: { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
const run = await daySweep(db, table, { ownerOf: ownerOfKey }).run(Date.now(), Date.now() + 600_000);
const again = await daySweep(db, table, { ownerOf: ownerOfKey }).run(Date.now() + 3_600_000, Date.now() + 600_000);
console.log(JSON.stringify({ customers: N, items: items.length, run, nextHour: again }));
client.destroy();
await dynamo.stop();
