/**
 * The rate limiter's counts on DynamoDB, exact under any concurrency (the item encoding is counter-item.ts, the
 * sharding of large Enterprise limits shards.ts). Admitting a request is one conditional UpdateItem that adds 1 to
 * the counts of the request's minute and day while both are below their limits and no ban runs; the counts are
 * named after their windows, so the first request of a window is no different and there is nothing to roll over.
 * When the write is refused, ReturnValuesOnConditionCheckFailure tells a ban from a used-up window without another
 * read. Counting refusals toward a ban is left to the caller (CounterStore, refusal-cache.ts), which batches it.
 *
 * The day counts are also the usage history's (lib/usage/history.ts). When the item an admission's write returns
 * still holds counts of a day that is final (two days old), the same request then moves them to the customer's
 * history item with one guarded TransactWriteItems (`recordDays`): once per day and item, the one request that costs
 * more than a write. Admission does not depend on it: a move that loses to another (or fails) leaves the counts for
 * a later request to move, and a plain write refused because such a transaction holds the item is sent again.
 *
 * A customer counted on N > 1 items (shards) sends each request to one item, in turn, each enforcing its share;
 * an item that refuses is remembered as full for the rest of its window (counts never fall within a window), and
 * the request tries the next one. A 429 is answered only when every item has refused in the request's window, so
 * a sharded customer never gets a 429 while quota remains anywhere.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItems } from '../dynamo/batch-get.js';
import type { Limits } from '../plans.js';
import { recordDays, USAGE_RETENTION_DEFAULT_DAYS } from '../usage/history.js';
import { type BanOptions, refusals } from './ban.js';
import {
  type CounterItem,
  callCountName,
  counterItem,
  countsOf,
  dayCountName,
  finishedDays,
  type ItemCounts,
  isConditionFailure,
  itemOnFailure,
  lastCallName,
  minuteCountName,
  NO_BAN,
  placeholders,
  refusalCountName,
  removeClause,
  retainUntil,
  retryingConflicts,
  staleMinuteNames,
} from './counter-item.js';
import type { Admission, ConsumeOptions, CounterStore, UsageSnapshot, Windows } from './limiter.js';
import { ITEM_CAPACITY_PER_MINUTE, MAX_SHARDS, shardCount, shardKey, shardLimits } from './shards.js';
import { views, windowStarts } from './windows.js';

export interface DynamoLimiterOptions extends BanOptions {
  /** Admitted requests per minute one item carries (shards.ts); tests scale it down. */
  itemCapacityPerMinute?: number;
  /** What to do with an error of moving a finished day to the history: the request was admitted all the same. */
  onHistoryError?: (error: unknown) => void;
}

/** What one sharded customer's items showed this instance in the current windows. */
interface ShardMemory {
  minuteStart: number;
  dayStart: number;
  /** Highest count seen on each item in the current minute and day. */
  minute: number[];
  day: number[];
  /** The item the next request goes to first. */
  next: number;
}

/** Bounds the per-process maps: a burst of customers clears them rather than growing without end. */
const MEMORY_MAX = 10_000;
/** Names an item write removes at most at once; more are left for the next write. */
const REMOVALS_MAX = 16;

type Outcome = { outcome: 'admitted' | 'limit' | 'banned'; counts: ItemCounts };

export function dynamoRateLimiter(db: DynamoDBDocumentClient, table: string, options: DynamoLimiterOptions): CounterStore {
  const capacity = options.itemCapacityPerMinute ?? ITEM_CAPACITY_PER_MINUTE;
  const refusalCounter = refusals(db, table, options);
  const retentionDays = options.usageRetentionDays ?? USAGE_RETENTION_DEFAULT_DAYS;
  /** Attributes of ended minutes seen on each item, removed by this instance's next write to it. */
  const stale = new Map<string, string[]>();
  const shardMemory = new Map<string, ShardMemory>();
  /** Items whose finished days this instance is moving: concurrent requests leave it to that one. */
  const moving = new Set<string>();

  function noteStale(key: string, item: CounterItem | undefined, minuteStart: number): void {
    const names = staleMinuteNames(item, minuteStart);
    if (!names.length) {
      stale.delete(key);
      return;
    }
    if (stale.size >= MEMORY_MAX) stale.clear();
    stale.set(key, names.slice(0, REMOVALS_MAX));
  }

  /** Moves the item's finished days to the customer's history; a loss or an error leaves them for a later request. */
  async function moveFinishedDays(customerId: string, key: string, item: CounterItem | undefined, dayStart: number): Promise<void> {
    const days = finishedDays(item, dayStart).slice(0, REMOVALS_MAX);
    if (!days.length || moving.has(key)) return;
    moving.add(key);
    try {
      await recordDays(db, table, customerId, key, days, retentionDays);
    } catch (error) {
      options.onHistoryError?.(error);
    } finally {
      moving.delete(key);
    }
  }

  /**
   * One conditional write to one item (`key`, one of `customerId`'s): admitted, or refused with what it held. With
   * `callOf`, the same write counts the call to that deprecated operation, so it costs no second write and a refused
   * call is not counted.
   */
  async function admitOn(customerId: string, key: string, share: Limits, now: number, callOf: string | undefined): Promise<Outcome> {
    const { minuteStart, dayStart } = windowStarts(now);
    const names: Record<string, string> = { '#m': minuteCountName(minuteStart), '#d': dayCountName(dayStart) };
    if (callOf !== undefined) {
      names['#calls'] = callCountName(callOf);
      names['#lastCall'] = lastCallName(callOf);
    }
    const call = callOf === undefined ? { add: '', set: '' } : { add: ', #calls :one', set: ', #lastCall = :now' };
    const remove = removeClause(stale.get(key) ?? [], names);
    try {
      const { Attributes } = await retryingConflicts(() =>
        db.send(
          new UpdateCommand({
            TableName: table,
            Key: { customerId: key },
            UpdateExpression: `ADD #m :one, #d :one${call.add} SET expiresAt = :expires${call.set}${remove}`,
            ConditionExpression: `(attribute_not_exists(#m) OR #m < :perMinute) AND (attribute_not_exists(#d) OR #d < :perDay) AND ${NO_BAN}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ':one': 1,
              ':perMinute': share.perMinute,
              ':perDay': share.perDay,
              ':now': now,
              // The item keeps its days not yet moved to the history as long as the history keeps them.
              ':expires': retainUntil(dayStart, retentionDays),
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      const item = counterItem(Attributes);
      noteStale(key, item, minuteStart);
      await moveFinishedDays(customerId, key, item, dayStart);
      return { outcome: 'admitted', counts: countsOf(item, minuteStart, dayStart, now) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = itemOnFailure(error);
      noteStale(key, old, minuteStart);
      const counts = countsOf(old, minuteStart, dayStart, now);
      return { outcome: counts.banUntil ? 'banned' : 'limit', counts };
    }
  }

  function memoryOf(customerId: string, limits: Limits, n: number, now: number): ShardMemory {
    const { minuteStart, dayStart } = windowStarts(now);
    const id = `${customerId}|${limits.perMinute}|${limits.perDay}`;
    let memory = shardMemory.get(id);
    if (!memory || memory.dayStart !== dayStart) {
      if (shardMemory.size >= MEMORY_MAX) shardMemory.clear();
      // Instances start at different items, so they spread over the items as well as each one does.
      memory = { minuteStart, dayStart, minute: Array(n).fill(0), day: Array(n).fill(0), next: Math.floor(Math.random() * n) };
      shardMemory.set(id, memory);
    }
    if (memory.minuteStart !== minuteStart) {
      memory.minuteStart = minuteStart;
      memory.minute = Array(n).fill(0);
    }
    return memory;
  }

  /** The customer's windows as the sum of its items' shares, as this instance last saw each item. */
  function shardedWindows(memory: ShardMemory, limits: Limits, n: number, refused: boolean): Windows {
    let minuteLeft = 0;
    let dayLeft = 0;
    let dayFull = 0;
    for (let i = 0; i < n; i++) {
      const share = shardLimits(limits, n, i);
      minuteLeft += Math.max(0, share.perMinute - (memory.minute[i] ?? 0));
      dayLeft += Math.max(0, share.perDay - (memory.day[i] ?? 0));
      if ((memory.day[i] ?? 0) >= share.perDay) dayFull++;
    }
    const counted = views(
      {
        minuteStart: memory.minuteStart,
        minuteCount: limits.perMinute - minuteLeft,
        dayStart: memory.dayStart,
        dayCount: limits.perDay - dayLeft,
      },
      limits,
    );
    // Every item refused: nothing is admitted before the minute ends, unless every item is out for the day.
    if (refused && dayFull < n) counted.minute.remaining = 0;
    return counted;
  }

  async function consumeSharded(
    customerId: string,
    limits: Limits,
    n: number,
    now: number,
    callOf: string | undefined,
  ): Promise<Admission> {
    const memory = memoryOf(customerId, limits, n, now);
    const start = memory.next;
    memory.next = (memory.next + 1) % n;
    for (let step = 0; step < n; step++) {
      const i = (start + step) % n;
      const share = shardLimits(limits, n, i);
      if ((memory.minute[i] ?? 0) >= share.perMinute || (memory.day[i] ?? 0) >= share.perDay) continue;
      const { outcome, counts } = await admitOn(customerId, shardKey(customerId, i), share, now, callOf);
      memory.minute[i] = Math.max(memory.minute[i] ?? 0, counts.minuteCount);
      memory.day[i] = Math.max(memory.day[i] ?? 0, counts.dayCount);
      if (outcome === 'admitted') return { admitted: true, windows: shardedWindows(memory, limits, n, false) };
      if (counts.banUntil)
        return { admitted: false, reason: 'banned', banUntil: counts.banUntil, windows: shardedWindows(memory, limits, n, true) };
    }
    return { admitted: false, reason: 'limit', windows: shardedWindows(memory, limits, n, true) };
  }

  async function consume(customerId: string, limits: Limits, nowMs: number, options: ConsumeOptions = {}): Promise<Admission> {
    const now = Math.floor(nowMs / 1000);
    const n = shardCount(limits, capacity);
    if (n > 1) return consumeSharded(customerId, limits, n, now, options.callOf);
    const { outcome, counts } = await admitOn(customerId, customerId, limits, now, options.callOf);
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

  async function unban(customerId: string, nowMs: number): Promise<boolean> {
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: { customerId }, ConsistentRead: true }));
    const home = counterItem(Item);
    if (!home) return false;
    // Every refusal count goes too, so the next refusal does not start a new ban at once.
    const names: Record<string, string> = {};
    const counts = Object.keys(home).filter((name) => name === refusalCountName(Number(name.slice(1))));
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { customerId },
        UpdateExpression: `REMOVE ${['banUntil', ...placeholders(counts, names)].join(', ')}`,
        ...(counts.length ? { ExpressionAttributeNames: names } : {}),
      }),
    );
    // The customer's other items, if it is sharded (the CLI does not know its shard count: try them all).
    await Promise.all(
      Array.from({ length: MAX_SHARDS - 1 }, async (_, i) => {
        try {
          await db.send(
            new UpdateCommand({
              TableName: table,
              Key: { customerId: shardKey(customerId, i + 1) },
              UpdateExpression: 'REMOVE banUntil',
              ConditionExpression: 'attribute_exists(banUntil)',
            }),
          );
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
      }),
    );
    return home.banUntil !== undefined && home.banUntil > Math.floor(nowMs / 1000);
  }

  async function countRefusals(customerId: string, limits: Limits, count: number, minuteStart: number, nowMs: number) {
    return refusalCounter.countRefusals(customerId, limits, shardCount(limits, capacity), count, minuteStart, Math.floor(nowMs / 1000));
  }

  return { consume, peek, unban, countRefusals, knowsRefused: () => false };
}
