/**
 * One process of the four-process burst (limiters.ts): builds a fresh instance of one side's limiter, says when it
 * is ready, fires its share of the burst at once when told, and reports the decisions and its DynamoDB work.
 */
import { documentClient } from '../../lib/dynamo/client.js';
import type { Limits } from '../../lib/plans.js';
import { sleep } from '../support/sleep.js';
import { DynamoMeter } from './dynamo-meter.js';
import { type Decider, type Decision, oursInstance, peerClient, peerInstance } from './peer-limiter.js';

export interface BurstOrder {
  side: 'ours' | 'peer';
  customerId: string;
  limits: Limits;
  requests: number;
  endpoint: string;
  countersTable: string;
}

export interface BurstReport {
  decisions: Record<Decision | 'error', number>;
  calls: number;
  writeUnits: number;
}

let decide: Decider | undefined;
let order: BurstOrder | undefined;
const meter = new DynamoMeter();

process.on('message', async (message: { prepare?: BurstOrder; go?: true }) => {
  if (message.prepare) {
    order = message.prepare;
    if (order.side === 'ours') {
      meter.attach(documentClient());
      decide = oursInstance(order.countersTable);
    } else {
      const client = peerClient(order.endpoint);
      meter.attach(client);
      decide = peerInstance(client);
    }
    process.send?.({ ready: true });
    return;
  }
  if (!message.go || !decide || !order) return;
  const { customerId, limits, requests } = order;
  const run = decide;
  const outcomes = await Promise.all(Array.from({ length: requests }, () => run(customerId, limits).catch(() => 'error' as const)));
  const decisions: BurstReport['decisions'] = { admitted: 0, limit: 0, banned: 0, error: 0 };
  for (const outcome of outcomes) decisions[outcome]++;
  // Let batched refusal counts that the burst scheduled be written, so they are part of its cost.
  await sleep(1_200);
  const calls = meter.take();
  const report: BurstReport = { decisions, calls: calls.length, writeUnits: calls.reduce((sum, c) => sum + c.write, 0) };
  process.send?.({ report }, () => process.exit(0));
});
