/**
 * Which failures the client retries, and how long it waits first. Retried: 429 RATE_LIMIT_EXCEEDED and THROTTLED,
 * 502, 503 and 504 (no answer from the service yet), 409 IDEMPOTENCY_IN_PROGRESS (the first request's answer comes
 * on a retry), and no answer at all (safe: every create carries an Idempotency-Key). Never: a ban, other 4xx, 500.
 */
import type { ErrorCode } from '../http/error-codes.js';

export interface BackoffOptions {
  /** The first retry waits up to this long (ms). @default 200 */
  baseMs?: number;
  /** No retry waits longer than this without a Retry-After (ms). @default 10_000 */
  capMs?: number;
}

const RETRIED_CODES: ReadonlySet<ErrorCode> = new Set(['RATE_LIMIT_EXCEEDED', 'THROTTLED', 'IDEMPOTENCY_IN_PROGRESS']);
const RETRIED_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

export function isRetried(status: number, code: ErrorCode): boolean {
  return RETRIED_STATUSES.has(status) || RETRIED_CODES.has(code);
}

/** Without a Retry-After: full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"), [0, min(cap, base × 2^retry)). */
export function backoffMs(retry: number, random: () => number, { baseMs = 200, capMs = 10_000 }: BackoffOptions = {}): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** retry));
}

/** Retry-After in whole seconds (the only form the API sends), in ms; an HTTP-date is honoured too. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
