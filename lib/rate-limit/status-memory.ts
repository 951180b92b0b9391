/**
 * GET /rate-limit's reads, at most one per customer per STATUS_READ_INTERVAL_MS on an instance; concurrent peeks share
 * one. A read that showed a ban is never answered from here: the refusal cache in front answers it, and checks read.
 */
import type { Limits } from '../plans.js';
import type { Admission, ConsumeOptions, CounterStore, UsageSnapshot, Windows } from './limiter.js';
import { limitsKey, MEMORY_MAX, movedOnViews, type WindowView } from './windows.js';

export const STATUS_READ_INTERVAL_MS = 1_000;

export interface StatusMemoryOptions {
  readIntervalMs?: number;
  /** Customers remembered at most; past that, the longest remembered are forgotten first. */
  maxCustomers?: number;
}

interface Known {
  customerId: string;
  windows: Windows | undefined;
  banUntil: number | null;
  readAtMs: number;
  /** The read under way, which other peeks wait for. */
  reading: Promise<UsageSnapshot> | undefined;
}

/** Of two views of one window, the truer: the later window, or in the same window the fewer left. */
function newer(known: WindowView, seen: WindowView): WindowView {
  if (seen.reset !== known.reset) return seen.reset > known.reset ? seen : known;
  return seen.remaining < known.remaining ? seen : known;
}

function merged(known: Windows | undefined, seen: Windows): Windows {
  return known ? { minute: newer(known.minute, seen.minute), day: newer(known.day, seen.day) } : seen;
}

/**
 * Counts never fall within a window, and every admission on this instance updates what is remembered, so with one
 * instance the answer is exact; with several, `remaining` is an upper bound at most one interval old.
 */
export function statusMemory(store: CounterStore, options: StatusMemoryOptions = {}): CounterStore {
  const readIntervalMs = options.readIntervalMs ?? STATUS_READ_INTERVAL_MS;
  const maxCustomers = options.maxCustomers ?? MEMORY_MAX;
  const known = new Map<string, Known>();

  function fresh(entry: Known, nowMs: number): boolean {
    return entry.windows !== undefined && entry.banUntil === null && nowMs >= entry.readAtMs && nowMs - entry.readAtMs < readIntervalMs;
  }

  function read(key: string, customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot> {
    let entry = known.get(key);
    if (!entry) {
      for (const oldest of known.keys()) {
        if (known.size < maxCustomers) break;
        known.delete(oldest);
      }
      entry = { customerId, windows: undefined, banUntil: null, readAtMs: nowMs, reading: undefined };
      known.set(key, entry);
    }
    const target = entry;
    const reading = store.peek(customerId, limits, nowMs).then((snapshot) => {
      // Admissions noted while the read was under way may be newer than it.
      target.windows = merged(target.windows, snapshot.windows);
      target.banUntil = snapshot.banUntil;
      target.readAtMs = nowMs;
      return { windows: target.windows, banUntil: snapshot.banUntil };
    });
    target.reading = reading;
    const done = () => {
      if (target.reading === reading) target.reading = undefined;
    };
    reading.then(done, done);
    return reading;
  }

  async function peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot> {
    const key = limitsKey(customerId, limits);
    const entry = known.get(key);
    if (entry?.reading) await entry.reading.catch(() => undefined);
    if (entry?.windows && fresh(entry, nowMs))
      return { windows: movedOnViews(entry.windows, limits, Math.floor(nowMs / 1000)), banUntil: null };
    return read(key, customerId, limits, nowMs);
  }

  function note(customerId: string, limits: Limits, admission: Admission): void {
    const entry = known.get(limitsKey(customerId, limits));
    if (!entry) return;
    if (admission.admitted) {
      entry.windows = merged(entry.windows, admission.windows);
      entry.banUntil = null;
    } else if (admission.reason === 'banned') entry.banUntil = admission.banUntil;
  }

  return {
    async consume(customerId: string, limits: Limits, nowMs: number, options?: ConsumeOptions) {
      const admission = await store.consume(customerId, limits, nowMs, options);
      note(customerId, limits, admission);
      return admission;
    },
    peek,
    async countRefusals(customerId, limits, count, minuteStart, nowMs, firstRefusalMs) {
      const result = await store.countRefusals(customerId, limits, count, minuteStart, nowMs, firstRefusalMs);
      const entry = known.get(limitsKey(customerId, limits));
      if (entry && result.banUntil) entry.banUntil = result.banUntil;
      return result;
    },
    knowsRefused: (customerId, limits, nowMs) => store.knowsRefused(customerId, limits, nowMs),
  };
}
