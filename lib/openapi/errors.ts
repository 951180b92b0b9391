/** How the document explains each error code, and the Error answer of a status; numbers come from their definitions. */
import { GATEWAY_RESPONSES } from '../api-gateway/gateway-responses.js';
import { CATEGORY_ALLOWANCE_DEFAULT, CATEGORY_CAP } from '../categories/schema.js';
import { withThousands } from '../format.js';
import { ERROR_STATUS, type ErrorCode } from '../http/error-codes.js';
import { MAX_BODY_BYTES } from '../http/json-body.js';
import { CLAIM_LAPSES_AFTER_SECONDS } from '../idempotency/key.js';
import { RETRY_AFTER_CODES } from './answers.js';
import { HEADERS, headerRefs } from './headers.js';

export type Json = Record<string, unknown>;

const BODY_LIMIT = `${MAX_BODY_BYTES / 1024} KiB`;

export const ERROR_DOCS: Record<ErrorCode, { description: string; example: string }> = {
  MALFORMED_JSON: { description: 'the body is missing, empty, not UTF-8 or not JSON.', example: 'The request body is not valid JSON' },
  VALIDATION_FAILED: {
    description:
      'a field, path parameter or header breaks its rule (also a body that is null, an array or a scalar, one nested more than 32 levels deep, and a string holding a lone surrogate); the message names it.',
    example: '"name" must not be empty or only white space',
  },
  UNAUTHORIZED: {
    description:
      'The API key is missing, malformed, unknown, revoked, expired, or of the other environment, its account is suspended, or the request has more than one Authorization header. `WWW-Authenticate` carries the bearer challenge.',
    example: 'The Authorization header is missing or its API key is not valid: send Authorization: Bearer <API key>',
  },
  NOT_FOUND: {
    description: 'No such operation: the path, or the method on it (HEAD and OPTIONS included), does not exist under /v1.',
    example: 'There is no such operation: check the method and the path (see the API reference)',
  },
  METHOD_NOT_ALLOWED: { description: 'The path exists, the method does not.', example: 'The method is not allowed on this path' },
  CATEGORY_EXISTS: {
    description:
      'the name is taken: names are compared after NFKC normalisation and full case folding (NFKC_Casefold), so "Straße" and "STRASSE", or "ﬁsh" and "fish", are one name.',
    example:
      'A category named "STRASSE" already exists (names are compared ignoring case and character variants: "Straße" and "STRASSE", or "ﬁsh" and "fish", are one name)',
  },
  CATEGORY_LIMIT_REACHED: {
    description: `the environment holds ${withThousands(CATEGORY_CAP)} categories, or the caller's customer holds its allowance of categories (${CATEGORY_ALLOWANCE_DEFAULT} unless the environment is configured otherwise; categories it created that still exist). The message says which.`,
    example: `Your allowance of ${CATEGORY_ALLOWANCE_DEFAULT} categories in this environment is used up (it counts the categories you created that still exist); no more can be created`,
  },
  IDEMPOTENCY_IN_PROGRESS: {
    description: `a request with the same \`Idempotency-Key\` is still running; retry after \`Retry-After\` to get its answer (the claim of a request that died lapses within ${CLAIM_LAPSES_AFTER_SECONDS} s).`,
    example: 'A request with this Idempotency-Key is still being processed; retry after the time in Retry-After to get its answer',
  },
  IDEMPOTENCY_KEY_REUSED: {
    description:
      'The `Idempotency-Key` was already used with a different request body (within the 24 hours it is remembered); use a new key for a new request.',
    example:
      'This Idempotency-Key was already used with a different request body; use a new key for a new request (keys are remembered for 24 hours)',
  },
  GONE: {
    description: 'The operation was retired on its sunset date.',
    example: 'GET /pets/{petId} was retired on Tue, 01 Jun 2027 00:00:00 GMT; see the Link header',
  },
  PAYLOAD_TOO_LARGE: {
    description: `The body is over ${BODY_LIMIT}: refused before the operation runs and before the key is checked, on any path and method (deployed, by the web ACL in front of API Gateway), and not counted against the plan.`,
    example: `The request body is too large; the limit is ${MAX_BODY_BYTES} bytes (${BODY_LIMIT})`,
  },
  UNSUPPORTED_MEDIA_TYPE: {
    description: 'The body is not `application/json`, or its `charset` parameter is not `utf-8`.',
    example: 'Content-Type "text/plain" is not supported: send the body as application/json',
  },
  RATE_LIMIT_EXCEEDED: {
    description: 'a plan window is used up.',
    example: 'Rate limit exceeded: the free plan allows 60 requests per minute; retry after 42 seconds',
  },
  API_KEY_TEMPORARILY_BANNED: {
    description: 'too many refused requests; every key of the customer is banned for a while.',
    example: 'Too many requests were made after being refused: every key of this account is banned for 900 more seconds.',
  },
  THROTTLED: {
    description:
      "the gateway's throttles, before the plan's counts: the customer's usage plan (never below what the plan allows) or the stage-wide safety throttle (`Retry-After: 1`); or the web ACL's limits per address: any requests from one address in 60 seconds (`Retry-After: 60`), or requests without a valid API key from one address in 5 minutes (`Retry-After: 300`); the web ACL's answers carry no `X-Request-Id`.",
    example: GATEWAY_RESPONSES.THROTTLED.message,
  },
  INTERNAL_ERROR: {
    description: 'Something went wrong on our side; quote `X-Request-Id` if it persists.',
    example: 'Something went wrong on our side; quote request id 0b6e2c1f-6d0a-4c36-9a4e-2f1b7f0c9d10 if it persists',
  },
  NOT_IMPLEMENTED: {
    description: 'The interface specification names this operation but does not define its shape, so it is not implemented.',
    example: 'This operation is not implemented: the interface specification does not define its shape',
  },
  SERVICE_UNAVAILABLE: {
    description: 'The data store is unreachable or throttling; retry after `Retry-After`.',
    example: 'The service is temporarily unavailable; retry after the time in Retry-After',
  },
};

/** The gateway's answer of a status for the whole API, where the words of its code do not describe it. */
export const GATEWAY_ANSWER_DOCS: Partial<Record<number, { description: string; example: string }>> = {
  400: {
    description:
      'A malformed request (a request line that is not HTTP/1.1, headers over the limit, a body whose length is ambiguous) is answered 400 VALIDATION_FAILED before the operation runs and before the key is checked, on any path and method.',
    example: GATEWAY_RESPONSES.DEFAULT_4XX.message,
  },
};

/** Said of a route's own header (Deprecation, X-API-Stability, …) on a status the gateway answers too. */
const NOT_FROM_GATEWAY =
  'Not on the answer the gateway gives with this status for the whole API, before it knows the operation; on every answer of the operation itself.';

/** What a client should do after any answer of a status, beyond what each code says. */
const STATUS_ADVICE: Partial<Record<number, string>> = { 429: 'Wait for `Retry-After`, and back off exponentially.' };

export function byStatus(codes: readonly ErrorCode[]): [number, ErrorCode[]][] {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) groups.set(ERROR_STATUS[code], [...(groups.get(ERROR_STATUS[code]) ?? []), code]);
  return [...groups].sort(([a], [b]) => a - b);
}

export interface ErrorResponseOptions {
  /** Said instead of the codes' descriptions, with this example (the gateway's answers). */
  own?: { description: string; example: string };
  note?: string;
  /** Headers the gateway's answer with this status lacks. */
  notAlways?: readonly string[];
}

export function errorResponse(
  status: number,
  codes: readonly ErrorCode[],
  headers: readonly string[],
  options: ErrorResponseOptions = {},
): Json {
  const [first] = codes;
  if (!first) throw new Error(`No error codes for status ${status}`);
  const explained = options.own
    ? [options.own.description]
    : codes.length === 1
      ? [ERROR_DOCS[first].description.charAt(0).toUpperCase() + ERROR_DOCS[first].description.slice(1)]
      : codes.map((code) => `${code}: ${ERROR_DOCS[code].description}`);
  const advice = STATUS_ADVICE[status];
  // Required when every code of the status carries it; else with those that do (409 IDEMPOTENCY_IN_PROGRESS).
  const withRetry = codes.filter((code) => RETRY_AFTER_CODES.has(code));
  const sometimes = (name: string, when: (description?: string) => string) => ({
    [name]: { ...HEADERS[name], required: false, description: when(HEADERS[name]?.description) },
  });
  const retry =
    withRetry.length === 0
      ? {}
      : withRetry.length === codes.length
        ? headerRefs(['Retry-After'])
        : sometimes('Retry-After', (description) => `With ${withRetry.join(', ')}: ${description}`);
  const notAlways = options.notAlways ?? [];
  const notFromGateway = notAlways.map((name) => sometimes(name, (description) => `${description} ${NOT_FROM_GATEWAY}`));
  return {
    description: [...explained, ...(options.note ? [options.note] : []), ...(advice ? [advice] : [])].join(' '),
    headers: { ...headerRefs(headers.filter((name) => !notAlways.includes(name))), ...Object.assign({}, ...notFromGateway), ...retry },
    content: {
      'application/json': {
        schema: {
          allOf: [{ $ref: '#/components/schemas/Error' }],
          properties: { code: { enum: [...codes] }, status: { const: status } },
        },
        example: { code: first, message: options.own?.example ?? ERROR_DOCS[first].example, status },
      },
    },
  };
}
