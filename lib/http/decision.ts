/**
 * Admission: the request is counted against the customer's windows (a `peek` route only reads them), or refused with
 * 429 when a window is used up or a ban runs; either way with this request's rate-limit headers.
 */
import type { AuthContext } from '../auth/context.js';
import { nowMs } from '../clock.js';
import { recordDecision } from '../metrics.js';
import type { Admission, RateLimiter, UsageSnapshot } from '../rate-limit/limiter.js';
import { blocking, rateLimitHeaders, retryAfter } from '../rate-limit/windows.js';
import type { Route } from '../routes.js';
import { HttpError } from './error-codes.js';

export interface Decision {
  /** The 429 to answer with, when the request is refused. */
  refusal?: HttpError;
  /** This request's rate-limit headers. */
  headers: Record<string, string>;
  /** The windows a peek read (peek routes only). */
  usage?: UsageSnapshot;
  /** Writes the decision's metric (lib/metrics.ts), once; called as soon as the decision is known. */
  record: () => void;
}

export interface Admitting {
  decision: Promise<Decision>;
  /**
   * The handler may run while the count is in flight: the route only reads, and this instance does not know the
   * customer is refused (a client hammering after a 429 would otherwise double the load).
   */
  alongside: boolean;
}

function decided(route: Route, caller: AuthContext, admission: Admission, nowSeconds: number): Decision {
  let recorded = false;
  const record = () => {
    if (!recorded) recordDecision(route.operationId, caller, admission.admitted ? 'admitted' : admission.reason);
    recorded = true;
  };
  if (admission.admitted) return { headers: rateLimitHeaders(admission.windows, nowSeconds), record };
  if (admission.reason === 'banned') {
    const wait = retryAfter(admission.banUntil, nowSeconds);
    return {
      record,
      headers: rateLimitHeaders(admission.windows, nowSeconds, admission.banUntil),
      refusal: new HttpError(
        'API_KEY_TEMPORARILY_BANNED',
        `Too many requests were made after being refused: every key of this account is banned for ${wait} more seconds. Back off exponentially after a 429.`,
        { 'Retry-After': wait },
      ),
    };
  }
  const window = blocking(admission.windows) ?? admission.windows.minute;
  const wait = retryAfter(window.reset, nowSeconds);
  const per = window.name === 'minute' ? `${caller.perMinute} requests per minute` : `${caller.perDay} requests per day`;
  return {
    record,
    headers: rateLimitHeaders(admission.windows, nowSeconds),
    refusal: new HttpError(
      'RATE_LIMIT_EXCEEDED',
      `Rate limit exceeded: the ${caller.plan} plan allows ${per}; retry after ${wait} seconds`,
      { 'Retry-After': wait },
    ),
  };
}

/** Starts the count (or the read of a peek route); the decision settles when DynamoDB has answered. */
export function admit(route: Route, caller: AuthContext, limiter: RateLimiter): Admitting {
  const { customerId, perMinute, perDay } = caller;
  const limits = { perMinute, perDay };
  const now = nowMs();
  const nowSeconds = Math.floor(now / 1000);
  if (route.quota === 'peek') {
    const decision = limiter
      .peek(customerId, limits, now)
      // A peek counts nothing, so it writes no metric.
      .then((usage) => ({
        usage,
        headers: rateLimitHeaders(usage.windows, nowSeconds, usage.banUntil ?? undefined),
        record: () => undefined,
      }));
    return { decision, alongside: false };
  }
  const alongside = route.runsBeforeAdmission && !limiter.knowsRefused(customerId, limits, now);
  const decision = limiter
    .consume(customerId, limits, now, route.deprecation ? { callOf: route.operationId } : {})
    .then((admission) => decided(route, caller, admission, nowSeconds));
  return { decision, alongside };
}
