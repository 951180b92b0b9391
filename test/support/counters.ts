/** A customer's stored counts, read straight from this test file's counters table (all of its counter items). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { counterItem, countsOf } from '../../lib/rate-limit/counter-item.js';
import { MAX_SHARDS, shardKey } from '../../lib/rate-limit/shards.js';
import { windowStarts } from '../../lib/rate-limit/windows.js';
import { testDb } from './customers.js';

export interface StoredCounts {
  /** Admitted in the minute and the day of `nowMs`, over all the customer's items. */
  minute: number;
  day: number;
  /** Refusals counted toward the ban in that minute. */
  refusals: number;
  banUntil: number | undefined;
  /** How many counter items the customer has. */
  items: number;
}

export async function storedCounts(customerId: string, nowMs = Date.now()): Promise<StoredCounts> {
  const now = Math.floor(nowMs / 1000);
  const { minuteStart, dayStart } = windowStarts(now);
  const items = await Promise.all(
    Array.from({ length: MAX_SHARDS }, async (_, i) => {
      const { Item } = await testDb.send(
        new GetCommand({ TableName: process.env.COUNTERS_TABLE, Key: { customerId: shardKey(customerId, i) }, ConsistentRead: true }),
      );
      return counterItem(Item);
    }),
  );
  const counts = items.map((item) => countsOf(item, minuteStart, dayStart, now));
  return {
    minute: counts.reduce((sum, c) => sum + c.minuteCount, 0),
    day: counts.reduce((sum, c) => sum + c.dayCount, 0),
    refusals: counts[0]?.refusals ?? 0,
    banUntil: counts[0]?.banUntil,
    items: items.filter(Boolean).length,
  };
}
