/** The response headers the document describes, once each; operations reference them by name. */
import type { JsonSchema } from '@valibot/to-json-schema';

export const HEADERS: Record<string, { description: string; required?: boolean; schema: JsonSchema }> = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed in the window with the fewest requests left after this one (on a tie, the day window). 0 on answers given before a customer is known (401, 404).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that window.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) at which that window resets.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Policy': {
    description:
      'IETF draft field: both windows of the plan, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`. Sent whenever a customer is known.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'IETF draft field: remaining quota and reset of both windows, e.g. `"minute";r=59;t=42`. Sent whenever a customer is known.',
    schema: { type: 'string' },
  },
  'X-Request-Id': {
    description: 'The id of this request; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
  'Retry-After': {
    description: 'Whole seconds (at least 1) to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated since this Unix time (seconds), written `@<seconds>`.',
    required: true,
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
  },
  Sunset: {
    description: 'RFC 8594: the HTTP-date after which the operation answers 410 GONE.',
    required: true,
    schema: { type: 'string', examples: ['Tue, 01 Jun 2027 00:00:00 GMT'] },
  },
  Link: {
    description: 'The documentation of the deprecation, with `rel="deprecation"`.',
    required: true,
    schema: { type: 'string', pattern: 'rel="deprecation"' },
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
