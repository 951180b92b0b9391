/**
 * Sharded customers: how many counter items a customer is counted on, each item's key and share of its limits, and
 * the admission that walks the items in turn (`shardWalk`), each enforcing its share; an item that refuses is
 * remembered as full for the rest of its window, so a 429 comes only once every item has refused in that window.
 */
import type { Limits } from '../plans.js';
import type { AdmitOnItem } from './item-admission.js';
import type { Admission, Windows } from './limiter.js';
import { limitsKey, MEMORY_MAX, views, windowStarts } from './windows.js';

/**
 * DynamoDB serves one partition, so one item, at most 1,000 write units per second; a failed conditional write costs
 * one like a successful one. Half goes to admissions (30,000 per minute an item), half to refusals and bursts.
 * 20 items (600,000 per minute) match API Gateway's highest stage throttle, 10,000 per second (infra/config.ts).
 */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;
export const ADMISSION_SHARE = 0.5;
export const ITEM_CAPACITY_PER_MINUTE = PARTITION_WRITE_UNITS_PER_SECOND * ADMISSION_SHARE * 60;
export const MAX_SHARDS = 20;
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
 * Shard 0 is the customer's own key (an unsharded customer's one item, which also holds the refusal count). Customer
 * ids never contain "#", and the old deprecated-call item's starts with "deprecated#": these keys meet nothing else.
 */
export function shardKey(customerId: string, i: number): string {
  return i === 0 ? customerId : `shard#${i}#${customerId}`;
}

/** Every key a customer may be counted on, for readers that do not know its shard count (usage, deprecated calls). */
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
    const id = limitsKey(customerId, limits);
    let memory = memories.get(id);
    if (!memory || memory.dayStart !== dayStart) {
      if (memories.size >= MEMORY_MAX) memories.clear();
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
