/**
 * The rate limiter an instance uses: a CounterStore (the counts on DynamoDB) behind a memory of the refusals this
 * instance has seen, so that a client hammering after a 429 costs no DynamoDB call at all.
 */
import { nowMs as clockNow } from '../clock.js';
import type { Limits } from '../plans.js';
import type { Admission, ConsumeOptions, CounterStore, RateLimiter, UsageSnapshot, Windows } from './limiter.js';
import { FLUSH_INTERVAL_MS, type RefusalBatch, refusalBatch } from './refusal-batch.js';
import { blocking, limitsKey, MEMORY_MAX, movedOnViews } from './windows.js';

export { FLUSH_INTERVAL_MS };
export const BAN_RECHECK_MS = 10_000;

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

interface RememberedBan {
  reason: 'banned';
  banUntil: number;
  windows: Windows;
  /** When this instance last learned the ban from the store. */
  checkedAtMs: number;
  /** The check under way, which requests arriving meanwhile wait for. */
  checking: Promise<unknown> | undefined;
}

type Remembered = { reason: 'limit'; until: number; windows: Windows } | RememberedBan;

interface Entry {
  customerId: string;
  refusal: Remembered | undefined;
  /** The last windows a decision showed, for a ban that a refusal count started. */
  windows: Windows;
  batch: RefusalBatch;
}

/**
 * - A refusal for a used-up window stays true until that window resets (counts never fall within one), so it is
 *   answered from memory until then. Entries are keyed by customer and limits, so a plan change is never refused.
 * - A remembered ban answers `consume` and `peek` until it ends, but once BAN_RECHECK_MS has passed since it was
 *   learned the next request asks the store, and requests meanwhile wait for that check; no ban found forgets it.
 * - Every refusal counts toward the ban (refusal-batch.ts) and is answered as the refusal it is, so the refusals a
 *   client is told of (RATE_LIMIT_EXCEEDED) are the ones counted, for the ban and in the usage history.
 */
export function refusalCache(store: CounterStore, options: RefusalCacheOptions = {}): RateLimiter & { flushAll(): Promise<void> } {
  const banRecheckMs = options.banRecheckMs ?? BAN_RECHECK_MS;
  const maxCustomers = options.maxCustomers ?? MEMORY_MAX;
  const entries = new Map<string, Entry>();

  function active(entry: Entry, now: number): Remembered | undefined {
    const r = entry.refusal;
    if (r && now < (r.reason === 'limit' ? r.until : r.banUntil)) return r;
    entry.refusal = undefined;
    return undefined;
  }

  function rememberBan(entry: Entry, banUntil: number, nowMs: number): void {
    entry.refusal = { reason: 'banned', banUntil, windows: entry.windows, checkedAtMs: nowMs, checking: undefined };
  }

  function entryFor(customerId: string, limits: Limits, windows: Windows, nowMs: number): Entry {
    const key = limitsKey(customerId, limits);
    let entry = entries.get(key);
    if (!entry) {
      const now = Math.floor(nowMs / 1000);
      if (entries.size >= maxCustomers) {
        for (const [k, e] of entries) if (e.batch.idle() && !active(e, now)) entries.delete(k);
        for (const k of entries.keys()) {
          if (entries.size < maxCustomers) break;
          entries.delete(k);
        }
      }
      const created: Entry = {
        customerId,
        refusal: undefined,
        windows,
        batch: refusalBatch(store, customerId, limits, nowMs, {
          flushIntervalMs: options.flushIntervalMs ?? FLUSH_INTERVAL_MS,
          schedule: options.schedule ?? unrefTimer,
          onBackgroundError: options.onBackgroundError,
          onBan: (banUntil, atMs) => rememberBan(created, banUntil, atMs),
        }),
      };
      entry = created;
      entries.set(key, entry);
    }
    entry.windows = windows;
    return entry;
  }

  /** A remembered ban, after any check under way: answered from memory, due for this request's check, or gone. */
  async function banAt(
    customerId: string,
    limits: Limits,
    nowMs: number,
  ): Promise<{ entry: Entry; ban: RememberedBan; next: 'memory' | 'check' } | undefined> {
    for (;;) {
      const entry = entries.get(limitsKey(customerId, limits));
      const ban = entry && active(entry, Math.floor(nowMs / 1000));
      if (!entry || ban?.reason !== 'banned') return undefined;
      if (!ban.checking) return { entry, ban, next: nowMs - ban.checkedAtMs < banRecheckMs ? 'memory' : 'check' };
      await ban.checking.catch(() => undefined);
    }
  }

  /** Asks the store again about a remembered ban: a ban it finds is learned anew, no ban forgets the remembered one. */
  async function check<T>(
    entry: Entry,
    ban: RememberedBan,
    nowMs: number,
    ask: Promise<T>,
    banOf: (answer: T) => number | undefined,
  ): Promise<T> {
    ban.checking = ask;
    try {
      const answer = await ask;
      const banUntil = banOf(answer);
      if (entry.refusal === ban) {
        if (banUntil) Object.assign(ban, { banUntil, checkedAtMs: nowMs });
        else entry.refusal = undefined;
      }
      return answer;
    } finally {
      ban.checking = undefined;
    }
  }

  const bannedBy = (admission: Admission) => (!admission.admitted && admission.reason === 'banned' ? admission.banUntil : undefined);

  async function decide(customerId: string, limits: Limits, nowMs: number, admission: Admission): Promise<Admission> {
    if (admission.admitted) {
      const entry = entries.get(limitsKey(customerId, limits));
      // Admitted means no ban runs (any more); a remembered used-up window stays true until it resets.
      if (entry?.refusal?.reason === 'banned') entry.refusal = undefined;
      return admission;
    }
    const entry = entryFor(customerId, limits, admission.windows, nowMs);
    if (admission.reason === 'banned') {
      rememberBan(entry, admission.banUntil, nowMs);
      return admission;
    }
    const until = (blocking(admission.windows) ?? admission.windows.minute).reset;
    // A refusal sent before a ban was learned, answered after, leaves the ban remembered (a check forgets it first).
    if (entry.refusal?.reason !== 'banned') entry.refusal = { reason: 'limit', until, windows: admission.windows };
    await entry.batch.add(nowMs);
    return admission;
  }

  async function consume(customerId: string, limits: Limits, nowMs: number, options?: ConsumeOptions): Promise<Admission> {
    const now = Math.floor(nowMs / 1000);
    const remembered = await banAt(customerId, limits, nowMs);
    if (remembered?.next === 'memory') {
      const { banUntil, windows } = remembered.ban;
      return { admitted: false, reason: 'banned', banUntil, windows: movedOnViews(windows, limits, now) };
    }
    if (remembered) {
      const asked = store.consume(customerId, limits, nowMs, options);
      return decide(customerId, limits, nowMs, await check(remembered.entry, remembered.ban, nowMs, asked, bannedBy));
    }
    const entry = entries.get(limitsKey(customerId, limits));
    const refusal = entry && active(entry, now);
    if (entry && refusal?.reason === 'limit') {
      const windows = movedOnViews(refusal.windows, limits, now);
      await entry.batch.add(nowMs);
      return { admitted: false, reason: 'limit', windows };
    }
    return decide(customerId, limits, nowMs, await store.consume(customerId, limits, nowMs, options));
  }

  async function peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot> {
    const remembered = await banAt(customerId, limits, nowMs);
    if (remembered?.next === 'memory') {
      const { banUntil, windows } = remembered.ban;
      return { windows: movedOnViews(windows, limits, Math.floor(nowMs / 1000)), banUntil };
    }
    if (remembered)
      return check(remembered.entry, remembered.ban, nowMs, store.peek(customerId, limits, nowMs), (s) => s.banUntil ?? undefined);
    const snapshot = await store.peek(customerId, limits, nowMs);
    // A ban read here is remembered like one an admission met: the next requests are answered without a call.
    if (snapshot.banUntil !== null) rememberBan(entryFor(customerId, limits, snapshot.windows, nowMs), snapshot.banUntil, nowMs);
    return snapshot;
  }

  function knowsRefused(customerId: string, limits: Limits, nowMs: number): boolean {
    const entry = entries.get(limitsKey(customerId, limits));
    const refusal = entry && active(entry, Math.floor(nowMs / 1000));
    return refusal?.reason === 'limit' || (refusal?.reason === 'banned' && nowMs - refusal.checkedAtMs < banRecheckMs);
  }

  return {
    consume,
    peek,
    knowsRefused,
    /** Writes every pending refusal now (tests, and a process about to stop). */
    flushAll: async () => {
      await Promise.all([...entries.values()].map((entry) => entry.batch.flush(clockNow())));
    },
  };
}
