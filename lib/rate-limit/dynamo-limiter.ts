/**
 * The rate limiter's counts on DynamoDB, exact under any concurrency (a CounterStore): admission on one item
 * (item-admission.ts) or a sharded customer's items (shards.ts), refusals toward a ban (ban.ts), and `peek`.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { getItems } from '../dynamo/batch-get.js';
import type { Limits } from '../plans.js';
import { USAGE_RETENTION_DEFAULT_DAYS } from '../usage/day-counts.js';
import { type BanOptions, refusals } from './ban.js';
import { type CounterItem, counterItem, countsOf, type ItemCounts, staleNameMemory } from './counter-item.js';
import { itemAdmission } from './item-admission.js';
import type { Admission, ConsumeOptions, CounterStore, UsageSnapshot } from './limiter.js';
import { ITEM_CAPACITY_PER_MINUTE, shardCount, shardKey, shardWalk } from './shards.js';
import { views, windowStarts } from './windows.js';

export interface DynamoLimiterOptions extends BanOptions {
  /** Admitted requests per minute one item carries (shards.ts); tests scale it down. */
  itemCapacityPerMinute?: number;
}

export function dynamoRateLimiter(db: DynamoDBDocumentClient, table: string, options: DynamoLimiterOptions): CounterStore {
  const capacity = options.itemCapacityPerMinute ?? ITEM_CAPACITY_PER_MINUTE;
  const retentionDays = options.usageRetentionDays ?? USAGE_RETENTION_DEFAULT_DAYS;
  const refusalCounter = refusals(db, table, options);
  const admitOn = itemAdmission(db, table, { retentionDays, staleNames: staleNameMemory(retentionDays) });
  const consumeSharded = shardWalk(admitOn);

  async function consume(customerId: string, limits: Limits, nowMs: number, options: ConsumeOptions = {}): Promise<Admission> {
    const now = Math.floor(nowMs / 1000);
    const n = shardCount(limits, capacity);
    if (n > 1) return consumeSharded(customerId, limits, n, now, options.callOf);
    const { outcome, counts } = await admitOn(customerId, limits, now, options.callOf);
    const { minuteStart, dayStart } = windowStarts(now);
    const windows = views({ minuteStart, dayStart, minuteCount: counts.minuteCount, dayCount: counts.dayCount }, limits);
    if (outcome === 'admitted') return { admitted: true, windows };
    if (counts.banUntil) return { admitted: false, reason: 'banned', banUntil: counts.banUntil, windows };
    return { admitted: false, reason: 'limit', windows };
  }

  /** The customer's items, strongly consistent: a status read right after a request sees it counted. */
  async function readItems(customerId: string, n: number): Promise<(CounterItem | undefined)[]> {
    if (n === 1) {
      const { Item } = await db.send(new GetCommand({ TableName: table, Key: { customerId }, ConsistentRead: true }));
      return [counterItem(Item)];
    }
    const byKey = new Map<string, CounterItem>();
    const keys = Array.from({ length: n }, (_, i) => ({ customerId: shardKey(customerId, i) }));
    for (const raw of await getItems(db, table, keys)) {
      const item = counterItem(raw);
      if (item) byKey.set(item.customerId, item);
    }
    return Array.from({ length: n }, (_, i) => byKey.get(shardKey(customerId, i)));
  }

  async function peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot> {
    const now = Math.floor(nowMs / 1000);
    const { minuteStart, dayStart } = windowStarts(now);
    const items = await readItems(customerId, shardCount(limits, capacity));
    const counts = items.map((item) => countsOf(item, minuteStart, dayStart, now));
    const sum = (pick: (c: ItemCounts) => number) => counts.reduce((total, c) => total + pick(c), 0);
    return {
      windows: views({ minuteStart, dayStart, minuteCount: sum((c) => c.minuteCount), dayCount: sum((c) => c.dayCount) }, limits),
      banUntil: counts[0]?.banUntil ?? null,
    };
  }

  async function countRefusals(
    customerId: string,
    limits: Limits,
    count: number,
    minuteStart: number,
    nowMs: number,
    firstRefusalMs = nowMs,
  ) {
    const shards = shardCount(limits, capacity);
    return refusalCounter.countRefusals(customerId, limits, shards, count, minuteStart, Math.floor(nowMs / 1000), firstRefusalMs);
  }

  return { consume, peek, countRefusals, knowsRefused: () => false };
}
