/**
 * Everything a route can answer, derived from its definition and the request path's steps: its error codes and the
 * headers on its answers. The OpenAPI document is written from this, and a test checks it against the request path.
 */
import type { Route } from '../routes.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { REPLAYED_HEADER } from './idempotency-key.js';
import { BODY_ERRORS } from './json-body.js';

/**
 * Every operation: the gateway's 401 and 404 (the latter for requests a validator files under the operation's path
 * that no method of its resource takes, such as HEAD or OPTIONS), the stage throttle, and the two failures any
 * step can end in.
 */
const ALWAYS: readonly ErrorCode[] = ['UNAUTHORIZED', 'NOT_FOUND', 'THROTTLED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
/** A route that counts can be refused. */
const QUOTA_ERRORS: readonly ErrorCode[] = ['RATE_LIMIT_EXCEEDED', 'API_KEY_TEMPORARILY_BANNED'];
/** A route that takes an Idempotency-Key: a malformed key, a key reused with another body, a key still in use. */
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ['VALIDATION_FAILED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'];

export function routeErrorCodes(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>([
    ...route.errors,
    ...(route.body ? BODY_ERRORS : []),
    ...(route.params ? (['VALIDATION_FAILED'] as const) : []),
    ...(route.deprecation ? (['GONE'] as const) : []),
    ...(route.idempotent ? IDEMPOTENCY_ERRORS : []),
    ...(route.quota === 'consume' ? QUOTA_ERRORS : []),
    ...ALWAYS,
  ]);
  return [...codes];
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

/** Headers on every answer of the operation itself (not the gateway's 401 and 404). */
export function routeHeaderNames(route: Route): string[] {
  return [
    ...COMMON_HEADERS,
    ...(route.stability !== 'stable' ? ['X-API-Stability'] : []),
    ...(route.deprecation ? ['Deprecation', 'Sunset', 'Link'] : []),
  ];
}

/**
 * The headers of a route's answers with this status. A 401 and a 404 come from the gateway before the operation
 * runs (a 401 from an operation, for a repeated Authorization header, carries the same): no customer is known, so
 * no IETF rate-limit fields and none of the route's own; a 401 carries its WWW-Authenticate challenge.
 */
export function statusHeaderNames(route: Route, status: number): string[] {
  if (status === 401) return [...GATEWAY_HEADERS, 'WWW-Authenticate'];
  if (status === 404) return [...GATEWAY_HEADERS];
  return routeHeaderNames(route);
}

/**
 * The codes a replay can answer with: the operation's own 4xx, which are remembered with its success
 * (lib/http/idempotency.ts); none for a route without an Idempotency-Key.
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
