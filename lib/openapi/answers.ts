/** Everything a route can answer, from its definition and the request path's steps: its error codes and headers. */
import { GATEWAY_RESPONSES, WEB_ACL_RESPONSES } from '../api-gateway/gateway-responses.js';
import { ERROR_STATUS, type ErrorCode } from '../http/error-codes.js';
import { BODY_ERRORS } from '../http/json-body.js';
import { REPLAYED_HEADER } from '../idempotency/key.js';
import type { Route } from '../routes.js';

/** What API Gateway and WAF answer for the whole API before the operation runs: no path's own, so any operation's. */
export const GATEWAY_CODES: readonly ErrorCode[] = [
  ...new Set([...Object.values(GATEWAY_RESPONSES), ...Object.values(WEB_ACL_RESPONSES)].map((spec) => spec.code)),
];
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set(GATEWAY_CODES.map((code) => ERROR_STATUS[code]));
/** Any step of the operation's request path: a repeated Authorization header, and the two failures any step can end in. */
const ANY_STEP: readonly ErrorCode[] = ['UNAUTHORIZED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
const QUOTA_ERRORS: readonly ErrorCode[] = ['RATE_LIMIT_EXCEEDED', 'API_KEY_TEMPORARILY_BANNED'];
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ['VALIDATION_FAILED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'];

/** The codes the operation's own request path (its function) can answer with. */
export function operationErrorCodes(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    ...route.errors,
    ...(route.body ? BODY_ERRORS : []),
    ...(route.params ? (['VALIDATION_FAILED'] as const) : []),
    ...(route.deprecation ? (['GONE'] as const) : []),
    ...(route.idempotent ? IDEMPOTENCY_ERRORS : []),
    ...(route.quota === 'consume' ? QUOTA_ERRORS : []),
    ...ANY_STEP,
  ]);
  return [...codes];
}

export function routeErrorCodes(route: Route): ErrorCode[] {
  return [...new Set([...operationErrorCodes(route), ...GATEWAY_CODES])];
}

/** Whether only the gateway answers the route with this status (a 400 on a route that reads no input, a 404, …). */
export function onlyFromGateway(route: Route, status: number): boolean {
  return route.success?.status !== status && !operationErrorCodes(route).some((code) => ERROR_STATUS[code] === status);
}

/** On every answer, the gateway's own included (which know no customer: rate-limit values 0, ANSWER_HEADERS). */
export const GATEWAY_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Request-Id',
  'Cache-Control',
  'X-Content-Type-Options',
] as const;

/** The route's own headers, on every answer of its operation and on none of the gateway's. */
export function routeOwnHeaderNames(route: Route): string[] {
  return [...(route.stability !== 'stable' ? ['X-API-Stability'] : []), ...(route.deprecation ? ['Deprecation', 'Sunset', 'Link'] : [])];
}

export const gatewayHeaderNames = (status: number): string[] => [...GATEWAY_HEADERS, ...(status === 401 ? ['WWW-Authenticate'] : [])];

/** The headers of the operation's answers with this status (and these codes), Idempotent-Replayed where a replay can. */
export function answerHeaderNames(route: Route, status: number, codes: readonly ErrorCode[] = []): string[] {
  // A 401 and a status only the gateway answers come before a customer is known: no IETF fields, none of the route's.
  const names =
    status === 401 || onlyFromGateway(route, status)
      ? gatewayHeaderNames(status)
      : [...GATEWAY_HEADERS, 'RateLimit-Policy', 'RateLimit', ...routeOwnHeaderNames(route)];
  // A replay repeats the success, or one of the operation's own 4xx, remembered with it.
  const replayable = (code: ErrorCode) => route.errors.includes(code) && ERROR_STATUS[code] < 500;
  const replays = route.idempotent && (status === route.success?.status || codes.some(replayable));
  return [...names, ...(replays ? [REPLAYED_HEADER] : [])];
}

export const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set([
  'RATE_LIMIT_EXCEEDED',
  'API_KEY_TEMPORARILY_BANNED',
  'THROTTLED',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_IN_PROGRESS',
]);
