/**
 * What a request asks of a rate limiter: admit and count (`consume`), read the windows (`peek`), and whether this
 * instance already knows a refusal. The process's limiter (lib/http/operation.ts) is status-memory.ts (peek reads) over
 * refusal-cache.ts (refusals from memory, batched counts) over dynamo-limiter.ts (the counts, a CounterStore).
 * Lifting a ban is the admin's (unban.ts).
 */
import type { Limits } from '../plans.js';
import type { WindowView } from './windows.js';

export interface Windows {
  minute: WindowView;
  day: WindowView;
}

export type Admission =
  | { admitted: true; windows: Windows }
  | { admitted: false; reason: 'limit'; windows: Windows }
  | { admitted: false; reason: 'banned'; banUntil: number; windows: Windows };

export interface UsageSnapshot {
  windows: Windows;
  /** Unix seconds at which a running ban ends; null when there is none. */
  banUntil: number | null;
}

/** What else the write that admits a request records. */
export interface ConsumeOptions {
  /**
   * A deprecated operation's id: the admitted request is also counted as a call to it, with its time, by the same
   * write (deprecated-calls.ts reads them); a refused one is not.
   */
  callOf?: string;
}

export interface RateLimiter {
  /** Admits and counts one request, or refuses it without counting it (a refusal counts toward a ban). */
  consume(customerId: string, limits: Limits, nowMs: number, options?: ConsumeOptions): Promise<Admission>;
  /** The windows and ban as they stand, without counting anything. */
  peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot>;
  /**
   * True when this instance already knows that `consume` would refuse (a refusal it remembers): the HTTP step then
   * waits for the decision instead of starting a handler's read that the refusal would throw away.
   */
  knowsRefused(customerId: string, limits: Limits, nowMs: number): boolean;
}

/** What counting refusals toward the ban found: the minute's count after the addition, and a ban that runs. */
export interface RefusalCount {
  /** The minute's count toward the ban after the addition (as it stands, when the batch was left out of it). */
  count: number;
  banUntil: number | undefined;
  /** When the customer's last ban was lifted (Unix milliseconds), if one ever was. */
  unbannedAtMs?: number;
}

/**
 * Where the counts live. Its `consume` decides admission but does not count a refusal toward the ban; the caller
 * does that with `countRefusals`, in batches (refusal-cache.ts), so a refusal costs at most the one failed write.
 */
export interface CounterStore extends RateLimiter {
  /**
   * Adds `count` refusals to the refusal count of the minute starting at `minuteStart` (one write), and starts the
   * ban if this addition is the one that reaches the threshold (banThreshold in ban.ts). A batch whose first refusal
   * (`firstRefusalMs`, default `nowMs`) came before the customer's last unban is left out of the count toward the ban.
   */
  countRefusals(
    customerId: string,
    limits: Limits,
    count: number,
    minuteStart: number,
    nowMs: number,
    firstRefusalMs?: number,
  ): Promise<RefusalCount>;
}
