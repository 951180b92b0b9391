/**
 * Everything a route can answer, derived from its definition and the request path's steps: its error codes and the
 * headers on its answers. The OpenAPI document is written from this, and a test checks it against the request path.
 */

import { GATEWAY_RESPONSES, WEB_ACL_RESPONSES } from '../api-gateway/gateway-responses.js';
import { ERROR_STATUS, type ErrorCode } from '../http/error-codes.js';
import { BODY_ERRORS } from '../http/json-body.js';
import { REPLAYED_HEADER } from '../idempotency/key.js';
import type { Route } from '../routes.js';

/**
 * The answers API Gateway and WAF give for the whole API, before the operation runs: a malformed request (400), a
 * refused key (401), no such operation (404; also HEAD or OPTIONS on an operation's path), a body over 16 KiB (413),
 * the throttles (429), an integration or authorizer failure (500, 503). Each is one gateway response (WAF's own
 * answer included) that cannot vary by path, so every operation can get each of them, without its own headers.
 */
export const GATEWAY_CODES: readonly ErrorCode[] = [
  ...new Set([...Object.values(GATEWAY_RESPONSES), ...Object.values(WEB_ACL_RESPONSES)].map((spec) => spec.code)),
];
/** The statuses of GATEWAY_CODES. */
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set(GATEWAY_CODES.map((code) => ERROR_STATUS[code]));
/** Any step of the operation's request path: a repeated Authorization header, and the two failures any step can end in. */
const ANY_STEP: readonly ErrorCode[] = ['UNAUTHORIZED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
/** A route that counts can be refused. */
const QUOTA_ERRORS: readonly ErrorCode[] = ['RATE_LIMIT_EXCEEDED', 'API_KEY_TEMPORARILY_BANNED'];
/** A route that takes an Idempotency-Key: a malformed key, a key reused with another body, a key still in use. */
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

/** Every code a request to the route can be answered with: its operation's, and the gateway's for the whole API. */
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

/** On every answer a customer's request gets: the IETF draft fields too, sent whenever a customer is known. */
export const COMMON_HEADERS = [...GATEWAY_HEADERS, 'RateLimit-Policy', 'RateLimit'] as const;

/** The route's own headers, on every answer of its operation and on none of the gateway's. */
export function routeOwnHeaderNames(route: Route): string[] {
  return [...(route.stability !== 'stable' ? ['X-API-Stability'] : []), ...(route.deprecation ? ['Deprecation', 'Sunset', 'Link'] : [])];
}

/** Headers on every answer of the operation itself (not the gateway's). */
export function routeHeaderNames(route: Route): string[] {
  return [...COMMON_HEADERS, ...routeOwnHeaderNames(route)];
}

/**
 * The headers of a route's answers with this status. A 401, and a status only the gateway answers the route with,
 * come before the operation runs (a 401 from an operation, for a repeated Authorization header, carries the same):
 * no customer is known, so no IETF rate-limit fields and none of the route's own; a 401 carries its
 * WWW-Authenticate challenge. Where the operation and the gateway both answer a status (a 400, 429, 500, 503), the
 * operation's headers, of which the document marks the route's own as not always sent.
 */
export function statusHeaderNames(route: Route, status: number): string[] {
  if (status === 401) return [...GATEWAY_HEADERS, 'WWW-Authenticate'];
  if (onlyFromGateway(route, status)) return [...GATEWAY_HEADERS];
  return routeHeaderNames(route);
}

/**
 * The codes a replay can answer with: the operation's own 4xx, which are remembered with its success
 * (lib/idempotency/runner.ts); none for a route without an Idempotency-Key.
 */
export function replayableCodes(route: Route): ErrorCode[] {
  return route.idempotent ? route.errors.filter((code) => ERROR_STATUS[code] < 500) : [];
}

/**
 * The headers of the operation's answers with this status (carrying these codes, for an error): those of every
 * answer, and Idempotent-Replayed where a replay can answer with the status.
 */
export function answerHeaderNames(route: Route, status: number, codes: readonly ErrorCode[] = []): string[] {
  const replayable = replayableCodes(route);
  const replays = route.idempotent && (status === route.success?.status || codes.some((code) => replayable.includes(code)));
  return [...statusHeaderNames(route, status), ...(replays ? [REPLAYED_HEADER] : [])];
}

/** Codes whose answers tell the client when to retry. */
export const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set([
  'RATE_LIMIT_EXCEEDED',
  'API_KEY_TEMPORARILY_BANNED',
  'THROTTLED',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_IN_PROGRESS',
]);
