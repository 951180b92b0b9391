/**
 * Rate-limit response headers. X-RateLimit-* describe the window with the fewest requests left (on a tie, the
 * day); RateLimit-Policy and RateLimit (IETF draft-ietf-httpapi-ratelimit-headers) describe both windows.
 */
import type { WindowView } from './windows.js';
import { tightest } from './windows.js';

/**
 * During a ban (`banUntil` in Unix seconds) nothing is admitted until it ends, so every window shows 0 left and
 * resets at the ban's end.
 */
export function rateLimitHeaders(
  windows: { minute: WindowView; day: WindowView },
  nowSeconds: number,
  banUntil?: number,
): Record<string, string> {
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

/** Whole seconds until `reset`, at least 1. */
export function retryAfter(reset: number, nowSeconds: number): string {
  return String(Math.max(1, Math.ceil(reset - nowSeconds)));
}
