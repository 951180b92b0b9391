/**
 * Everything a route can answer, derived from its definition and the chain's steps: its error codes and the
 * headers on its answers. The OpenAPI document is written from this, and a test checks it against the chain.
 */
import type { Route } from '../routes.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { REPLAYED_HEADER } from './idempotency-key.js';
import { BODY_ERRORS } from './json-body.js';

/** Every operation: the gateway's 401, the stage throttle, and the two failures any step can end in. */
const ALWAYS: readonly ErrorCode[] = ['UNAUTHORIZED', 'THROTTLED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
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

/** On every answer a customer's request gets (the gateway's refusals carry the same rate-limit names). */
export const COMMON_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'X-Request-Id',
] as const;

/** Headers on every answer of the operation itself (not the gateway's 401). */
export function routeHeaderNames(route: Route): string[] {
  return [
    ...COMMON_HEADERS,
    ...(route.stability !== 'stable' ? ['X-API-Stability'] : []),
    ...(route.deprecation ? ['Deprecation', 'Sunset', 'Link'] : []),
  ];
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
  return [...routeHeaderNames(route), ...(replays ? [REPLAYED_HEADER] : [])];
}

/** Codes whose answers tell the client when to retry. */
export const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set([
  'RATE_LIMIT_EXCEEDED',
  'API_KEY_TEMPORARILY_BANNED',
  'THROTTLED',
  'SERVICE_UNAVAILABLE',
  'IDEMPOTENCY_IN_PROGRESS',
]);
