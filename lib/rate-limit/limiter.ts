/**
 * The rate limiter's interfaces. The process's limiter (lib/http/operation.ts) is refusal-cache.ts (refusals from
 * memory, batched counts) over status-memory.ts (peek reads) over dynamo-limiter.ts (the counts, a CounterStore).
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

export interface ConsumeOptions {
  /** A deprecated operation's id: the admitting write also counts the call (deprecated-calls.ts); a refusal does not. */
  callOf?: string;
}

export interface RateLimiter {
  /** Admits and counts one request, or refuses it without counting it (a refusal counts toward a ban). */
  consume(customerId: string, limits: Limits, nowMs: number, options?: ConsumeOptions): Promise<Admission>;
  /** The windows and ban as they stand, without counting anything. */
  peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot>;
  /** This instance already knows `consume` would refuse: the caller then starts no handler read it would throw away. */
  knowsRefused(customerId: string, limits: Limits, nowMs: number): boolean;
}

export interface RefusalCount {
  /** The minute's count toward the ban after the addition (as it stands, when the batch was left out of it). */
  count: number;
  banUntil: number | undefined;
  /** When the customer's last ban was lifted (Unix milliseconds), if one ever was. */
  unbannedAtMs?: number;
}

/** Where the counts live. Its `consume` does not count a refusal; the caller batches them into `countRefusals`. */
export interface CounterStore extends RateLimiter {
  /**
   * Adds `count` refusals to the minute starting at `minuteStart` (one write), starting the ban if this addition
   * reaches the threshold. A batch begun (`firstRefusalMs`) before the last unban is left out of the ban's count.
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
