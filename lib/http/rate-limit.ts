/**
 * The rate-limit middleware of every operation. It counts the request against the customer's minute and day
 * windows (or, for getRateLimitStatus, only reads them), refuses with 429 when a window is used up or a ban runs,
 * and leaves the rate-limit headers for the boundary to put on the response, whatever its status.
 *
 * Operations that only read (listCategories, the 501 operations) run their handler while the count is in flight,
 * so the counter update and the read cost one round trip of latency together; the answer waits for the count
 * and becomes the 429 if the request was refused. Operations that write wait for admission first.
 */
import type middy from '@middy/core';
import { nowMs } from '../clock.js';
import { log } from '../log.js';
import { recordDecision } from '../metrics.js';
import type { Limits } from '../plans.js';
import type { Admission, CounterStore, UsageSnapshot } from '../rate-limit/counter-store.js';
import { rateLimitHeaders, retryAfter } from '../rate-limit/headers.js';
import { blocking } from '../rate-limit/windows.js';
import type { Route } from '../routes.js';
import type { AuthedContext } from './auth-context.js';
import { type ApiRequest, addResponseHeaders } from './boundary.js';
import { HttpError } from './errors.js';
import type { ApiEvent, ApiResult } from './response.js';

export type RateLimitedContext = AuthedContext & { usage?: UsageSnapshot };

/**
 * Customers this process last saw refused, and until when (Unix seconds). While a customer is refused, running
 * the handler ahead of admission would only waste reads (a client hammering after a 429 would double the load),
 * so those requests wait for the count first. Only a hint: the count itself always decides.
 */
const refusedUntil = new Map<string, number>();
const REFUSED_HINTS_MAX = 10_000;

function noteRefusal(customerId: string, until: number): void {
  if (refusedUntil.size >= REFUSED_HINTS_MAX) refusedUntil.clear();
  refusedUntil.set(customerId, until);
}

/** Reads before writes: a route may start its handler before admission only if it writes nothing but counters. */
export function canSpeculate(route: Route): boolean {
  return !route.deprecated && Object.entries(route.tables).every(([table, access]) => table === 'counters' || access === 'read');
}

function settle(request: ApiRequest, admission: Admission, limits: Limits, route: Route, nowSeconds: number): HttpError | undefined {
  const { auth } = request.context as RateLimitedContext;
  const { customerId, plan } = auth;
  recordDecision(route.operationId, auth, admission.admitted ? 'admitted' : admission.reason);
  if (admission.admitted) {
    refusedUntil.delete(customerId);
    addResponseHeaders(request, rateLimitHeaders(admission.windows, nowSeconds));
    return undefined;
  }
  if (admission.reason === 'banned') {
    noteRefusal(customerId, admission.banUntil);
    addResponseHeaders(request, rateLimitHeaders(admission.windows, nowSeconds, admission.banUntil));
    const wait = retryAfter(admission.banUntil, nowSeconds);
    return new HttpError(
      'API_KEY_TEMPORARILY_BANNED',
      `Too many requests were made after being refused: every key of this account is banned for ${wait} more seconds. Back off exponentially after a 429.`,
      { 'Retry-After': wait },
    );
  }
  addResponseHeaders(request, rateLimitHeaders(admission.windows, nowSeconds));
  const window = blocking(admission.windows) ?? admission.windows.minute;
  noteRefusal(customerId, window.reset);
  const wait = retryAfter(window.reset, nowSeconds);
  const per = window.name === 'minute' ? `${limits.perMinute} requests per minute` : `${limits.perDay} requests per day`;
  return new HttpError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: the ${plan} plan allows ${per}; retry after ${wait} seconds`, {
    'Retry-After': wait,
  });
}

export function rateLimit(route: Route, store: CounterStore): middy.MiddlewareObj<ApiEvent, ApiResult | undefined> {
  const speculate = canSpeculate(route);

  async function pendingRefusal(request: ApiRequest): Promise<HttpError | undefined> {
    const pending = request.internal.admission as Promise<HttpError | undefined> | undefined;
    delete request.internal.admission;
    return pending;
  }

  return {
    before: async function rateLimitBefore(request) {
      const context = request.context as RateLimitedContext;
      const { customerId, keyId, perMinute, perDay } = context.auth;
      const limits = { perMinute, perDay };
      const now = nowMs();
      const nowSeconds = Math.floor(now / 1000);
      if (!route.consumesQuota) {
        context.usage = await store.peek(customerId, limits, now);
        addResponseHeaders(request as ApiRequest, rateLimitHeaders(context.usage.windows, nowSeconds, context.usage.banUntil ?? undefined));
        return;
      }
      const admission = store.consume(customerId, limits, now).then((a) => settle(request as ApiRequest, a, limits, route, nowSeconds));
      if (speculate && !((refusedUntil.get(customerId) ?? 0) > nowSeconds)) {
        admission.catch(() => undefined); // awaited in after/onError; this only silences the early-rejection warning
        (request as ApiRequest).internal.admission = admission;
        return;
      }
      const refusal = await admission;
      if (refusal) throw refusal;
      if (route.deprecated) {
        log.info('deprecated operation called', { operationId: route.operationId, customerId, keyId });
        await store.recordDeprecatedCall(customerId, route.operationId, now);
      }
    },
    after: async function rateLimitAfter(request) {
      const refusal = await pendingRefusal(request as ApiRequest);
      if (refusal) throw refusal;
    },
    onError: async function rateLimitOnError(request) {
      try {
        const refusal = await pendingRefusal(request as ApiRequest);
        if (refusal) request.error = refusal;
      } catch (error) {
        request.error = error as Error;
      }
    },
  };
}
