/**
 * Sharded customers: how many counter items a customer is counted on, each item's key and share of its limits, and
 * the admission that walks the items in turn (`shardWalk`), each enforcing its share; an item that refuses is
 * remembered as full for the rest of its window, so a 429 comes only once every item has refused in that window.
 */
import type { Limits } from '../plans.js';
import type { AdmitOnItem } from './item-admission.js';
import type { Admission, Windows } from './limiter.js';
import { views, windowStarts } from './windows.js';

/** Write units per second DynamoDB gives one partition, and so one item. */
/**
 * DynamoDB serves one partition, so one item, at most 1,000 write units per second. Counting an admitted request
 * is one write unit, and so is a refused one that reaches DynamoDB (a failed conditional write is charged like a
 * successful one), plus the batched refusal counts and ban writes. One item is given at most half of that ceiling
 * for admissions, 500 per second or 30,000 per minute, which leaves the other half for refusals and for a minute's
 * quota arriving faster than evenly. Above that a customer is counted on N = ceil(perMinute / 30,000) items, each
 * enforcing its share of both windows; the shares add up to the limits exactly, so never more is admitted.
 *
 * The design stops at 20 items, 600,000 requests per minute (10,000 per second): the stage-wide throttle of API
 * Gateway cannot be set higher than 10,000 requests per second (infra/config.ts), so one customer can never use
 * more, and the admin CLI refuses larger limits (a stored larger limit is still counted exactly, on 20 items).
 */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;
/** The share of an item's write units spent on admissions; the rest is headroom for refusals and bursts. */
export const ADMISSION_SHARE = 0.5;
/** Admitted requests per minute one counter item carries: 1,000 × 0.5 × 60. */
export const ITEM_CAPACITY_PER_MINUTE = PARTITION_WRITE_UNITS_PER_SECOND * ADMISSION_SHARE * 60;
export const MAX_SHARDS = 20;
/** The largest per-minute limit the design delivers. */
export const PER_MINUTE_MAX = ITEM_CAPACITY_PER_MINUTE * MAX_SHARDS;

export function shardCount(limits: Limits, itemCapacityPerMinute = ITEM_CAPACITY_PER_MINUTE): number {
  return Math.min(MAX_SHARDS, Math.max(1, Math.ceil(limits.perMinute / itemCapacityPerMinute)));
}

/** Shard i's part of `total` over `n` items: as even as whole numbers allow, adding up to `total`. */
export function shareOf(total: number, n: number, i: number): number {
  return Math.floor(total / n) + (i < total % n ? 1 : 0);
}

export function shardLimits(limits: Limits, n: number, i: number): Limits {
  return { perMinute: shareOf(limits.perMinute, n, i), perDay: shareOf(limits.perDay, n, i) };
}

/**
 * The key of shard i. Shard 0 is the customer's own key, so an unsharded customer has exactly the one item it
 * always had, and that item also holds the refusal count. Customer ids never contain "#", and the key of an earlier
 * version's deprecated-call record starts with "deprecated#", so these keys meet nothing else in the table.
 */
export function shardKey(customerId: string, i: number): string {
  return i === 0 ? customerId : `shard#${i}#${customerId}`;
}

/**
 * The key of every item a customer may be counted on, whatever its limits are now: what reads its counts without
 * knowing its shard count (the usage history, deprecated calls) asks for all of them.
 */
export function counterKeys(customerId: string): string[] {
  return Array.from({ length: MAX_SHARDS }, (_, i) => shardKey(customerId, i));
}

const SHARD_KEY = /^shard#\d+#([^#]+)$/;

/** The customer a counter item's key belongs to (`shardKey`'s inverse); undefined for a key of any other item. */
export function ownerOfKey(key: string): string | undefined {
  if (!key.includes('#')) return key;
  return SHARD_KEY.exec(key)?.[1];
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

/** Customers remembered at most: a burst of customers clears the memory rather than growing it without end. */
const CUSTOMERS_MAX = 10_000;

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

export function shardWalk(admitOn: AdmitOnItem) {
  const memories = new Map<string, ShardMemory>();

  function memoryOf(customerId: string, limits: Limits, n: number, now: number): ShardMemory {
    const { minuteStart, dayStart } = windowStarts(now);
    const id = `${customerId}|${limits.perMinute}|${limits.perDay}`;
    let memory = memories.get(id);
    if (!memory || memory.dayStart !== dayStart) {
      if (memories.size >= CUSTOMERS_MAX) memories.clear();
      // Instances start at different items, so they spread over the items as well as each one does.
      memory = { minuteStart, dayStart, minute: Array(n).fill(0), day: Array(n).fill(0), next: Math.floor(Math.random() * n) };
      memories.set(id, memory);
    }
    if (memory.minuteStart !== minuteStart) {
      memory.minuteStart = minuteStart;
      memory.minute = Array(n).fill(0);
    }
    return memory;
  }

  /** Admits one request of `customerId`, counted on `n` items, at `now` (Unix seconds). */
  return async function consumeSharded(
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
      const { outcome, counts } = await admitOn(shardKey(customerId, i), share, now, callOf);
      memory.minute[i] = Math.max(memory.minute[i] ?? 0, counts.minuteCount);
      memory.day[i] = Math.max(memory.day[i] ?? 0, counts.dayCount);
      if (outcome === 'admitted') return { admitted: true, windows: shardedWindows(memory, limits, n, false) };
      if (counts.banUntil)
        return { admitted: false, reason: 'banned', banUntil: counts.banUntil, windows: shardedWindows(memory, limits, n, true) };
    }
    return { admitted: false, reason: 'limit', windows: shardedWindows(memory, limits, n, true) };
  };
}
