/**
 * Fixed windows aligned to the UTC minute and the UTC day, and what a client is told about them: X-RateLimit-*
 * describe the window with the fewest requests left (on a tie, the day); RateLimit-Policy and RateLimit (IETF
 * draft-ietf-httpapi-ratelimit-headers) describe both windows; and the key and size cap of an instance's memories.
 */
import type { Limits } from '../plans.js';
import type { Windows } from './limiter.js';

/** An instance's memory of a customer under given limits, so that a plan change starts anew. */
export const limitsKey = (customerId: string, limits: Limits) => `${customerId}|${limits.perMinute}|${limits.perDay}`;
/** Customers (or items) an instance's memories keep at most, so a burst of customers does not grow them without end. */
export const MEMORY_MAX = 10_000;

export const MINUTE = 60;
export const DAY = 86_400;

/** Window starts in Unix seconds, and the requests admitted in each. */
export interface WindowState {
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
}

export interface WindowView {
  name: 'minute' | 'day';
  limit: number;
  remaining: number;
  /** Unix seconds at which the window ends. */
  reset: number;
}

export function windowStarts(nowSeconds: number): { minuteStart: number; dayStart: number } {
  return { minuteStart: nowSeconds - (nowSeconds % MINUTE), dayStart: nowSeconds - (nowSeconds % DAY) };
}

export function views(state: WindowState, limits: Limits): Windows {
  return {
    minute: {
      name: 'minute',
      limit: limits.perMinute,
      remaining: Math.max(0, limits.perMinute - state.minuteCount),
      reset: state.minuteStart + MINUTE,
    },
    day: { name: 'day', limit: limits.perDay, remaining: Math.max(0, limits.perDay - state.dayCount), reset: state.dayStart + DAY },
  };
}

/** A view as it stands at `nowSeconds`: a window that has ended is the next, empty one (a refusal admitted nothing). */
function movedOn(window: WindowView, length: number, limit: number, nowSeconds: number): WindowView {
  return nowSeconds < window.reset ? window : { ...window, remaining: limit, reset: nowSeconds - (nowSeconds % length) + length };
}

/** Both views of a remembered refusal as they stand at `nowSeconds` (refusal-cache.ts). */
export function movedOnViews(windows: Windows, limits: Limits, nowSeconds: number): Windows {
  return {
    minute: movedOn(windows.minute, MINUTE, limits.perMinute, nowSeconds),
    day: movedOn(windows.day, DAY, limits.perDay, nowSeconds),
  };
}

/** The window with the fewest requests left; on a tie, the day window (docs/api.md, "Rate-limit headers"). */
export function tightest(windows: Windows): WindowView {
  return windows.minute.remaining < windows.day.remaining ? windows.minute : windows.day;
}

/** The window that refuses a request: of those used up, the one that resets last. */
export function blocking(windows: Windows): WindowView | undefined {
  const exhausted = [windows.minute, windows.day].filter((w) => w.remaining === 0);
  return exhausted.sort((a, b) => b.reset - a.reset)[0];
}

/** During a ban (`banUntil`, Unix seconds) every window shows 0 left and resets at the ban's end. */
export function rateLimitHeaders(windows: Windows, nowSeconds: number, banUntil?: number): Record<string, string> {
  const shown = tightest(windows);
  const reset = (w: WindowView) => banUntil ?? w.reset;
  const secondsLeft = (w: WindowView) => Math.max(0, reset(w) - nowSeconds);
  const remaining = (w: WindowView) => (banUntil ? 0 : w.remaining);
  return {
    'X-RateLimit-Limit': String(shown.limit),
    'X-RateLimit-Remaining': String(remaining(shown)),
    'X-RateLimit-Reset': String(reset(shown)),
    'RateLimit-Policy': `"minute";q=${windows.minute.limit};w=60, "day";q=${windows.day.limit};w=86400`,
    RateLimit: `"minute";r=${remaining(windows.minute)};t=${secondsLeft(windows.minute)}, "day";r=${remaining(windows.day)};t=${secondsLeft(windows.day)}`,
  };
}

export function retryAfter(reset: number, nowSeconds: number): string {
  return String(Math.max(1, Math.ceil(reset - nowSeconds)));
}
