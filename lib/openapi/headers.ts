/** The response headers the document describes, once each; operations reference them by name. */
import type { JsonSchema } from '@valibot/to-json-schema';
import { ANSWER_HEADERS, BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE } from '../http/answer-headers.js';

export const HEADERS: Record<string, { description: string; required?: boolean; schema: JsonSchema }> = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed in the window with the fewest requests left after this one (on a tie, the day window). 0 on answers given before a customer is known (401, 404, 413, the 400 of a malformed request, the 429 of a throttle).',
    required: true,
    schema: { type: 'integer', format: 'int64', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that window.',
    required: true,
    schema: { type: 'integer', format: 'int64', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) at which that window resets.',
    required: true,
    schema: { type: 'integer', format: 'int64', minimum: 0 },
  },
  'RateLimit-Policy': {
    description:
      'IETF draft field: both windows of the plan, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`. Sent whenever a customer is known.',
    schema: { type: 'string', maxLength: 200 },
  },
  RateLimit: {
    description:
      'IETF draft field: remaining quota and reset of both windows, e.g. `"minute";r=59;t=42`. Sent whenever a customer is known.',
    schema: { type: 'string', maxLength: 200 },
  },
  'X-Request-Id': {
    description: 'The id of this request; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 100 },
  },
  'Cache-Control': {
    description: "No answer may be stored by a cache: each holds a customer's data or the state of its quota.",
    required: true,
    schema: { type: 'string', const: ANSWER_HEADERS['Cache-Control'] },
  },
  'X-Content-Type-Options': {
    description: 'The body is of the type Content-Type says; clients must not guess another.',
    required: true,
    schema: { type: 'string', const: ANSWER_HEADERS['X-Content-Type-Options'] },
  },
  'WWW-Authenticate': {
    description:
      'RFC 9110 and RFC 6750: the bearer challenge, with `error="invalid_token"` when a key was sent and refused (without `error` when no Authorization header was sent).',
    required: true,
    schema: { type: 'string', enum: [BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE] },
  },
  'Retry-After': {
    description: 'Whole seconds (at least 1) to wait before retrying.',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1 },
  },
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated since this Unix time (seconds), written `@<seconds>`.',
    required: true,
    schema: { type: 'string', pattern: '^@-?[0-9]+$', maxLength: 21 },
  },
  Sunset: {
    description: 'RFC 8594: the HTTP-date after which the operation answers 410 GONE.',
    required: true,
    schema: { type: 'string', maxLength: 29, examples: ['Tue, 01 Jun 2027 00:00:00 GMT'] },
  },
  Link: {
    description: 'The documentation of the deprecation, with `rel="deprecation"`.',
    required: true,
    schema: { type: 'string', pattern: 'rel="deprecation"', maxLength: 2048 },
  },
  'Idempotent-Replayed': {
    description:
      'Sent as `true` on a replay: this is the stored answer of an earlier request with the same `Idempotency-Key` and body, and nothing was done again. Absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-API-Stability': {
    description: 'The stability of a non-stable operation; stable operations do not send it.',
    required: true,
    schema: { type: 'string', enum: ['beta', 'experimental'] },
  },
};

export function headerRefs(names: readonly string[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}
