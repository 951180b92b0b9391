/**
 * What the API asks of a rate limiter, whatever stores the counts: admit and count a request, read the windows
 * without counting, lift a ban. The DynamoDB implementation is dynamo-limiter.ts.
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

export interface RateLimiter {
  /** Admits and counts one request, or refuses it without counting it (a refusal counts toward a ban). */
  consume(customerId: string, limits: Limits, nowMs: number): Promise<Admission>;
  /** The windows and ban as they stand, without counting anything. */
  peek(customerId: string, limits: Limits, nowMs: number): Promise<UsageSnapshot>;
  /** Lifts a ban and forgets the minute's refusals; whether a ban was running. */
  unban(customerId: string, nowMs: number): Promise<boolean>;
}
