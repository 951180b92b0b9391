/**
 * The one place an answer is built, success or error, with every header once, in this order: X-RateLimit (the
 * customer's, or the gateway's 0/0/0 before its windows are known), Content-Type, the result's own (Retry-After,
 * WWW-Authenticate, Idempotent-Replayed), the IETF RateLimit fields, ANSWER_HEADERS, the route's own, X-Request-Id.
 */
import type { Route } from '../routes.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from './answer-headers.js';
import type { ApiResult, Result } from './response.js';
import { routeHeaders } from './stability.js';
import { errorAnswer } from './to-http-error.js';

/** How a request ended: with a result of the operation, or with an error of any step. */
export type Ending = { result: Result } | { error: unknown };

/** `rateLimit`: this request's rate-limit headers, once admission has decided; none before (a 401, a failed count). */
export function finish(route: Route, requestId: string, ending: Ending, rateLimit: Readonly<Record<string, string>> = {}): ApiResult {
  const { status, body, headers } = 'result' in ending ? ending.result : errorAnswer(ending.error, requestId);
  return {
    statusCode: status,
    headers: {
      // The customer's X-RateLimit values, spread with the IETF fields below, take these places.
      ...GATEWAY_RATE_LIMIT_HEADERS,
      'Content-Type': 'application/json',
      ...headers,
      ...rateLimit,
      ...ANSWER_HEADERS,
      ...routeHeaders(route),
      'X-Request-Id': requestId,
    },
    body: JSON.stringify(body),
  };
}
