/**
 * One customer's refusals on this instance, counted toward the ban in batches, at most once per FLUSH_INTERVAL_MS,
 * except that the refusal that would bring the minute's known total to the threshold writes at once and waits: with
 * one instance the ban starts at exactly the threshold, across instances at most one flush interval late.
 */
import { nowMs as clockNow } from '../clock.js';
import type { Limits } from '../plans.js';
import { banThreshold } from './ban.js';
import type { CounterStore, RefusalCount } from './limiter.js';
import { windowStarts } from './windows.js';

export const FLUSH_INTERVAL_MS = 1_000;

export interface RefusalBatchOptions {
  flushIntervalMs: number;
  /** As RefusalCacheOptions' (refusal-cache.ts). */
  schedule: (write: () => void, ms: number) => void;
  onBackgroundError?: (error: unknown) => void;
  /** Told of a ban a write started or found, with the time of the request that wrote. */
  onBan: (banUntil: number, nowMs: number) => void;
}

export interface RefusalBatch {
  /** Counts one refusal made at `nowMs`; the end of the ban it started or found, if any. */
  add(nowMs: number): Promise<number | undefined>;
  /** Writes what is pending now, after any write under way; the end of a ban it found, if any. */
  flush(nowMs: number): Promise<number | undefined>;
  idle(): boolean;
}

/**
 * Each batch carries the time of its first refusal, so the store can leave out a batch begun before an unban (ban.ts);
 * its answer then says the count started again, and the minute's total remembered here follows it down.
 */
export function refusalBatch(
  store: CounterStore,
  customerId: string,
  limits: Limits,
  nowMs: number,
  options: RefusalBatchOptions,
): RefusalBatch {
  /** The minute counted; its refusals not written yet, being written, and its total as the store last said. */
  let minuteStart = windowStarts(Math.floor(nowMs / 1000)).minuteStart;
  let pending = 0;
  let inFlight = 0;
  let written = 0;
  let firstPendingAtMs: number | undefined;
  let flushing: Promise<number | undefined> | undefined;
  let scheduled = false;
  /** The last unban the store told of (milliseconds; 0: none). */
  let unbannedAtMs = 0;

  function learn(result: RefusalCount, minute: number): void {
    const unban = result.unbannedAtMs ?? 0;
    if (minute === minuteStart) written = unban > unbannedAtMs ? result.count : Math.max(written, result.count);
    unbannedAtMs = Math.max(unbannedAtMs, unban);
  }

  function write(count: number, minute: number, firstMs: number, atMs: number): Promise<RefusalCount> {
    return store.countRefusals(customerId, limits, count, minute, atMs, firstMs).then((result) => {
      learn(result, minute);
      if (result.banUntil) options.onBan(result.banUntil, atMs);
      return result;
    });
  }

  async function flush(atMs: number): Promise<number | undefined> {
    while (flushing) {
      const banUntil = await flushing;
      if (banUntil) return banUntil;
    }
    if (!pending) return undefined;
    const minute = minuteStart;
    const count = pending;
    const firstMs = firstPendingAtMs ?? atMs;
    pending = 0;
    firstPendingAtMs = undefined;
    inFlight += count;
    const writing = write(count, minute, firstMs, atMs).then(
      (result) => result.banUntil,
      (error: unknown) => {
        // Kept for the next write, with the time of their first refusal.
        if (minuteStart === minute) {
          pending += count;
          firstPendingAtMs = Math.min(firstPendingAtMs ?? firstMs, firstMs);
        }
        throw error;
      },
    );
    flushing = writing;
    try {
      return await writing;
    } finally {
      if (minuteStart === minute) inFlight -= count;
      if (flushing === writing) flushing = undefined;
    }
  }

  /** Refusals that no later request writes (the client stopped) are written after the interval all the same. */
  function scheduleWrite(): void {
    if (scheduled) return;
    scheduled = true;
    options.schedule(() => {
      scheduled = false;
      if (pending) flush(clockNow()).catch((error: unknown) => options.onBackgroundError?.(error));
    }, options.flushIntervalMs);
  }

  async function add(atMs: number): Promise<number | undefined> {
    const minute = windowStarts(Math.floor(atMs / 1000)).minuteStart;
    let earlier: Promise<RefusalCount> | undefined;
    if (minute !== minuteStart) {
      // A new minute: what is left of the last one is written on its own minute (it may still reach a ban there).
      if (pending) earlier = write(pending, minuteStart, firstPendingAtMs ?? atMs, atMs);
      minuteStart = minute;
      pending = 0;
      inFlight = 0;
      written = 0;
      firstPendingAtMs = undefined;
    }
    pending++;
    firstPendingAtMs ??= atMs;
    const reaches = written + inFlight + pending >= banThreshold(limits);
    if (earlier) {
      const { banUntil } = await earlier;
      if (banUntil) return banUntil;
    }
    if (reaches || atMs - firstPendingAtMs >= options.flushIntervalMs) return flush(atMs);
    scheduleWrite();
    return undefined;
  }

  return { add, flush, idle: () => !pending && !flushing };
}
