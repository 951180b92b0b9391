/**
 * The rate-limit step of every operation. It counts the request against the customer's minute and day windows
 * (a `peek` route only reads them), refuses with 429 when a window is used up or a ban runs, and puts the
 * rate-limit headers on the answer, whatever its status. On a deprecated route the same write counts the call to
 * it (deprecated-calls.ts).
 *
 * A route that `runsBeforeAdmission` has its handler run while the count is in flight, so the count and the read
 * cost one round trip of latency together; the answer waits for the count and becomes the 429 if the request was
 * refused. Other routes wait for admission first.
 */
import { nowMs } from '../clock.js';
import { recordDecision } from '../metrics.js';
import type { Limits } from '../plans.js';
import { rateLimitHeaders, retryAfter } from '../rate-limit/headers.js';
import type { Admission, ConsumeOptions, RateLimiter } from '../rate-limit/limiter.js';
import { blocking } from '../rate-limit/windows.js';
import type { Route } from '../routes.js';
import { addHeaders, callerOf, type OperationMiddleware, type OperationRequest } from './context.js';
import { HttpError } from './errors.js';
import { errorAnswer, toHttpError } from './http-errors.js';

/** Records the decision's headers on the request; returns the 429 to answer with when it is a refusal. */
function settle(request: OperationRequest, route: Route, admission: Admission, limits: Limits, nowSeconds: number): HttpError | undefined {
  const caller = callerOf(request.context);
  const { plan } = caller;
  recordDecision(route.operationId, caller, admission.admitted ? 'admitted' : admission.reason);
  if (admission.admitted) {
    request.internal.rateLimitHeaders = rateLimitHeaders(admission.windows, nowSeconds);
    return undefined;
  }
  if (admission.reason === 'banned') {
    request.internal.rateLimitHeaders = rateLimitHeaders(admission.windows, nowSeconds, admission.banUntil);
    const wait = retryAfter(admission.banUntil, nowSeconds);
    return new HttpError(
      'API_KEY_TEMPORARILY_BANNED',
      `Too many requests were made after being refused: every key of this account is banned for ${wait} more seconds. Back off exponentially after a 429.`,
      { 'Retry-After': wait },
    );
  }
  request.internal.rateLimitHeaders = rateLimitHeaders(admission.windows, nowSeconds);
  const window = blocking(admission.windows) ?? admission.windows.minute;
  const wait = retryAfter(window.reset, nowSeconds);
  const per = window.name === 'minute' ? `${limits.perMinute} requests per minute` : `${limits.perDay} requests per day`;
  return new HttpError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: the ${plan} plan allows ${per}; retry after ${wait} seconds`, {
    'Retry-After': wait,
  });
}

export function rateLimit(route: Route, limiter: RateLimiter): OperationMiddleware {
  const options: ConsumeOptions = route.deprecation ? { callOf: route.operationId } : {};
  const takePending = (request: OperationRequest) => {
    const pending = request.internal.pendingRefusal;
    delete request.internal.pendingRefusal;
    return pending;
  };

  return {
    before: async function rateLimitBefore(request) {
      const { customerId, perMinute, perDay } = callerOf(request.context);
      const limits = { perMinute, perDay };
      const now = nowMs();
      const nowSeconds = Math.floor(now / 1000);
      if (route.quota === 'peek') {
        const usage = await limiter.peek(customerId, limits, now);
        request.context.usage = usage;
        request.internal.rateLimitHeaders = rateLimitHeaders(usage.windows, nowSeconds, usage.banUntil ?? undefined);
        return;
      }
      // While this instance knows the customer is refused, running the handler ahead of the decision would only
      // waste its read (a client hammering after a 429 would double the load): wait for the decision instead.
      const ahead = route.runsBeforeAdmission && !limiter.knowsRefused(customerId, limits, now);
      const refusal = limiter
        .consume(customerId, limits, now, options)
        .then((admission) => settle(request, route, admission, limits, nowSeconds));
      if (ahead) {
        refusal.catch(() => undefined); // awaited in after/onError; this only silences the early-rejection warning
        request.internal.pendingRefusal = refusal;
        return;
      }
      const refused = await refusal;
      if (refused) throw refused;
    },
    after: async function rateLimitAfter(request) {
      const refused = await takePending(request);
      if (refused) throw refused;
      addHeaders(request, request.internal.rateLimitHeaders ?? {});
    },
    onError: async function rateLimitOnError(request) {
      // The handler failed, or the count refused it: a refusal wins over whatever the handler did.
      const pending = takePending(request);
      if (pending) {
        try {
          const refused = await pending;
          if (refused) request.response = errorAnswer(refused);
        } catch (error) {
          request.response = errorAnswer(toHttpError(error, request.context.awsRequestId));
        }
      }
      addHeaders(request, request.internal.rateLimitHeaders ?? {});
    },
  };
}
