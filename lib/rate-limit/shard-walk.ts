/**
 * Admission of a customer counted on N > 1 items (shards.ts): each request goes to one item, in turn, each item
 * enforcing its share. An item that refuses is remembered as full for the rest of its window (counts never fall
 * within a window), and the request tries the next one. A 429 is answered only when every item has refused in the
 * request's window, so a sharded customer never gets a 429 while quota remains anywhere. The memory is this
 * process's: what each item showed in the current minute and day, and which item the next request starts at.
 */
import type { Limits } from '../plans.js';
import type { AdmitOnItem } from './item-admission.js';
import type { Admission, Windows } from './limiter.js';
import { shardKey, shardLimits } from './shards.js';
import { views, windowStarts } from './windows.js';

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
