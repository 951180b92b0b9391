/**
 * The rate limiter an instance uses: a CounterStore (the counts on DynamoDB) behind a memory of the refusals this
 * instance has seen, so that a client hammering after a 429 costs no DynamoDB call at all.
 *
 * - A refusal for a used-up window stays true until that window resets: counts never fall within a window. Until
 *   then the same customer with the same limits is refused from memory, with the same windows (moved on where one
 *   has reset), so the same 429, headers and Retry-After. Entries are keyed by customer and limits, so a plan change
 *   is never refused by what was remembered under the old limits.
 * - A ban is remembered until it ends, but re-checked every BAN_RECHECK_MS (one request goes to the store while
 *   the others keep the remembered answer), so `unban` takes effect on a warm instance within that bound.
 * - Every refusal counts toward the ban (ban.ts), here in batches: refusals add up in memory and are written as one
 *   unconditional addition at most once per FLUSH_INTERVAL_MS per customer (a timer writes what is left), except
 *   that the refusal that would bring the minute's total, as the store last reported it plus what is in memory, to
 *   the threshold writes at once and waits for the answer: with one instance the ban starts at exactly the
 *   threshold, and across instances at most one flush interval late.
 */
import { nowMs as clockNow } from '../clock.js';
import type { Limits } from '../plans.js';
import { banThreshold } from './ban.js';
import type { Admission, ConsumeOptions, CounterStore, RateLimiter, RefusalCount, Windows } from './limiter.js';
import { blocking, movedOnViews, windowStarts } from './windows.js';

export const BAN_RECHECK_MS = 10_000;
export const FLUSH_INTERVAL_MS = 1_000;

export interface RefusalCacheOptions {
  banRecheckMs?: number;
  flushIntervalMs?: number;
  /** Customers remembered at most; past that, those with nothing to remember or write are forgotten first. */
  maxCustomers?: number;
  /** What to do with an error of a write no request waits for (the timer's); the refusals are kept for the next. */
  onBackgroundError?: (error: unknown) => void;
  /** Runs the write of what is left after `ms` (default: an unref'd timer, which never keeps a process alive). */
  schedule?: (write: () => void, ms: number) => void;
}

function unrefTimer(write: () => void, ms: number): void {
  setTimeout(write, ms).unref?.();
}

type Remembered =
  | { reason: 'limit'; until: number; windows: Windows }
  | { reason: 'banned'; banUntil: number; windows: Windows; checkedAtMs: number; checking: boolean };

interface Entry {
  customerId: string;
  limits: Limits;
  refusal: Remembered | undefined;
  /** The last windows a decision showed, for a ban that a refusal count started. */
  windows: Windows;
  /** The minute whose refusals are counted below. */
  minuteStart: number;
  /** Refusals of that minute not written yet, being written, and the minute's total as the store last said. */
  pending: number;
  inFlight: number;
  written: number;
  firstPendingAtMs: number | undefined;
  flushing: Promise<number | undefined> | undefined;
  /** A write of what is left is scheduled. */
  scheduled: boolean;
}

export function refusalCache(store: CounterStore, options: RefusalCacheOptions = {}): RateLimiter & { flushAll(): Promise<void> } {
  const banRecheckMs = options.banRecheckMs ?? BAN_RECHECK_MS;
  const flushIntervalMs = options.flushIntervalMs ?? FLUSH_INTERVAL_MS;
  const maxCustomers = options.maxCustomers ?? 10_000;
  const schedule = options.schedule ?? unrefTimer;
  const entries = new Map<string, Entry>();
  const keyOf = (customerId: string, limits: Limits) => `${customerId}|${limits.perMinute}|${limits.perDay}`;

  function active(entry: Entry, now: number): Remembered | undefined {
    const r = entry.refusal;
    if (r && now < (r.reason === 'limit' ? r.until : r.banUntil)) return r;
    entry.refusal = undefined;
    return undefined;
  }

  function entryFor(customerId: string, limits: Limits, windows: Windows, now: number): Entry {
    const key = keyOf(customerId, limits);
    let entry = entries.get(key);
    if (!entry) {
      if (entries.size >= maxCustomers) {
        for (const [k, e] of entries) if (!e.pending && !e.flushing && !active(e, now)) entries.delete(k);
        for (const k of entries.keys()) {
          if (entries.size < maxCustomers) break;
          entries.delete(k);
        }
      }
      entry = {
        customerId,
        limits,
        refusal: undefined,
        windows,
        minuteStart: windowStarts(now).minuteStart,
        pending: 0,
        inFlight: 0,
        written: 0,
        firstPendingAtMs: undefined,
        flushing: undefined,
        scheduled: false,
      };
      entries.set(key, entry);
    }
    entry.windows = windows;
    return entry;
  }

  function rememberBan(entry: Entry, banUntil: number, nowMs: number): void {
    entry.refusal = { reason: 'banned', banUntil, windows: entry.windows, checkedAtMs: nowMs, checking: false };
  }

  /** Writes the pending refusals as one addition, after any write already under way; the ban it found, if any. */
  async function flush(entry: Entry, nowMs: number): Promise<number | undefined> {
    while (entry.flushing) {
      const banUntil = await entry.flushing;
      if (banUntil) return banUntil;
    }
    if (!entry.pending) return undefined;
    const { minuteStart, pending: count } = entry;
    entry.pending = 0;
    entry.firstPendingAtMs = undefined;
    entry.inFlight += count;
    const flushing = store.countRefusals(entry.customerId, entry.limits, count, minuteStart, nowMs).then(
      (result) => {
        if (entry.minuteStart === minuteStart) entry.written = Math.max(entry.written, result.count);
        if (result.banUntil) rememberBan(entry, result.banUntil, nowMs);
        return result.banUntil;
      },
      (error: unknown) => {
        if (entry.minuteStart === minuteStart) entry.pending += count;
        throw error;
      },
    );
    entry.flushing = flushing;
    try {
      return await flushing;
    } finally {
      if (entry.minuteStart === minuteStart) entry.inFlight -= count;
      if (entry.flushing === flushing) entry.flushing = undefined;
    }
  }

  /** Refusals that no later request writes (the client stopped) are written after the interval all the same. */
  function scheduleWrite(entry: Entry): void {
    if (entry.scheduled) return;
    entry.scheduled = true;
    schedule(() => {
      entry.scheduled = false;
      if (entry.pending) flush(entry, clockNow()).catch((error: unknown) => options.onBackgroundError?.(error));
    }, flushIntervalMs);
  }

  /** Counts one refusal toward the ban; the end of the ban it started or found, if any. */
  async function countRefusal(entry: Entry, nowMs: number): Promise<number | undefined> {
    const { minuteStart } = windowStarts(Math.floor(nowMs / 1000));
    let earlier: Promise<RefusalCount> | undefined;
    if (entry.minuteStart !== minuteStart) {
      // A new minute: what is left of the last one is written on its own minute (it may still reach a ban there).
      if (entry.pending) earlier = store.countRefusals(entry.customerId, entry.limits, entry.pending, entry.minuteStart, nowMs);
      Object.assign(entry, { minuteStart, pending: 0, inFlight: 0, written: 0, firstPendingAtMs: undefined });
    }
    entry.pending++;
    entry.firstPendingAtMs ??= nowMs;
    const reaches = entry.written + entry.inFlight + entry.pending >= banThreshold(entry.limits);
    if (earlier) {
      const { banUntil } = await earlier;
      if (banUntil) {
        rememberBan(entry, banUntil, nowMs);
        return banUntil;
      }
    }
    if (reaches || nowMs - entry.firstPendingAtMs >= flushIntervalMs) return flush(entry, nowMs);
    scheduleWrite(entry);
    return undefined;
  }

  async function decide(customerId: string, limits: Limits, nowMs: number, admission: Admission): Promise<Admission> {
    const now = Math.floor(nowMs / 1000);
    if (admission.admitted) {
      const entry = entries.get(keyOf(customerId, limits));
      // Admitted means no ban runs (any more); a remembered used-up window stays true until it resets.
      if (entry?.refusal?.reason === 'banned') entry.refusal = undefined;
      return admission;
    }
    const entry = entryFor(customerId, limits, admission.windows, now);
    if (admission.reason === 'banned') {
      rememberBan(entry, admission.banUntil, nowMs);
      return admission;
    }
    const until = (blocking(admission.windows) ?? admission.windows.minute).reset;
    if (entry.refusal?.reason !== 'banned') entry.refusal = { reason: 'limit', until, windows: admission.windows };
    const banUntil = await countRefusal(entry, nowMs);
    return banUntil ? { admitted: false, reason: 'banned', banUntil, windows: admission.windows } : admission;
  }

  async function consume(customerId: string, limits: Limits, nowMs: number, options?: ConsumeOptions): Promise<Admission> {
    const now = Math.floor(nowMs / 1000);
    const entry = entries.get(keyOf(customerId, limits));
    const refusal = entry && active(entry, now);
    if (entry && refusal?.reason === 'limit') {
      const windows = movedOnViews(refusal.windows, limits, now);
      const banUntil = await countRefusal(entry, nowMs);
      return banUntil ? { admitted: false, reason: 'banned', banUntil, windows } : { admitted: false, reason: 'limit', windows };
    }
    if (refusal?.reason === 'banned') {
      if (refusal.checking || nowMs - refusal.checkedAtMs < banRecheckMs) {
        return { admitted: false, reason: 'banned', banUntil: refusal.banUntil, windows: movedOnViews(refusal.windows, limits, now) };
      }
      // Time to ask the store again (an unban shows here); other requests keep the remembered ban meanwhile.
      refusal.checking = true;
      refusal.checkedAtMs = nowMs;
      try {
        return await decide(customerId, limits, nowMs, await store.consume(customerId, limits, nowMs, options));
      } finally {
        refusal.checking = false;
      }
    }
    return decide(customerId, limits, nowMs, await store.consume(customerId, limits, nowMs, options));
  }

  function knowsRefused(customerId: string, limits: Limits, nowMs: number): boolean {
    const entry = entries.get(keyOf(customerId, limits));
    const refusal = entry && active(entry, Math.floor(nowMs / 1000));
    return refusal?.reason === 'limit' || (refusal?.reason === 'banned' && nowMs - refusal.checkedAtMs < banRecheckMs);
  }

  /** Writes every pending refusal now (tests, and a process about to stop). */
  async function flushAll(): Promise<void> {
    await Promise.all([...entries.values()].map((entry) => flush(entry, clockNow())));
  }

  return {
    consume,
    peek: (customerId, limits, nowMs) => store.peek(customerId, limits, nowMs),
    async unban(customerId, nowMs) {
      const lifted = await store.unban(customerId, nowMs);
      // This instance forgets the ban at once; others within BAN_RECHECK_MS.
      for (const entry of entries.values())
        if (entry.customerId === customerId && entry.refusal?.reason === 'banned') entry.refusal = undefined;
      return lifted;
    },
    knowsRefused,
    flushAll,
  };
}
