/**
 * The Idempotency-Key header of the routes that declare `idempotent` (POST /categories): its names and rules, and
 * the chain's step that checks it. The header is absent (the request runs exactly as without this feature), or
 * one value of 1 to 255 printable ASCII characters, else 400 VALIDATION_FAILED naming it. What a key does is
 * lib/http/idempotency.ts's; this module stays free of the idempotency library, because the OpenAPI document and
 * every function's chain read it, and only the functions of idempotent routes should carry that library.
 */
import type { Context } from 'aws-lambda';
import { FUNCTION_SETTINGS } from '../function-settings.js';
import type { OperationMiddleware } from './context.js';
import { HttpError } from './errors.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX, REMEMBERED_SECONDS, REPLAYED_HEADER } from './idempotency-names.js';
import type { ApiEvent, ApiResult } from './response.js';

export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX, REMEMBERED_SECONDS, REPLAYED_HEADER };
/** Seconds a claim on a key can outlive the request that made it: the function's timeout (see idempotency.ts). */
export const CLAIM_LAPSES_AFTER_SECONDS = FUNCTION_SETTINGS.operationTimeoutSeconds;
/**
 * Retry-After of 409 IDEMPOTENCY_IN_PROGRESS. A create takes tens of milliseconds, so the first request has almost
 * always answered a second later. If it died instead (a crash, a timeout), its claim lapses when its invocation's
 * time would have run out, at most CLAIM_LAPSES_AFTER_SECONDS after it started.
 */
export const IN_PROGRESS_RETRY_AFTER = '1';
/** The header's rule in words, for messages and the OpenAPI document. */
export const IDEMPOTENCY_KEY_RULE = `1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;
/** Printable ASCII: space to tilde. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function headerValues(event: ApiEvent): string[] {
  // @middy/http-header-normalizer has lower-cased both maps. API Gateway keeps every value of a repeated header in
  // multiValueHeaders and only the last in headers.
  const name = IDEMPOTENCY_KEY_HEADER.toLowerCase();
  const values = event.multiValueHeaders?.[name];
  if (values?.length) return values;
  const single = event.headers?.[name];
  return single === undefined ? [] : [single];
}

/** The key of a request, checked; undefined when it sent none. */
export function checkedIdempotencyKey(event: ApiEvent): string | undefined {
  const values = headerValues(event);
  const [key] = values;
  if (key === undefined) return undefined;
  const refuse = (problem: string) =>
    new HttpError('VALIDATION_FAILED', `"${IDEMPOTENCY_KEY_HEADER}" ${problem}; it must be ${IDEMPOTENCY_KEY_RULE}`);
  if (values.length > 1) throw refuse(`was sent ${values.length} times; send it once`);
  if (key.length === 0) throw refuse('is empty');
  if (key.length > IDEMPOTENCY_KEY_MAX) throw refuse(`is ${key.length} characters long`);
  if (!PRINTABLE_ASCII.test(key)) throw refuse('contains a character that is not printable ASCII');
  return key;
}

/** The chain's step: checks the header and hands the key to the handler's wrapper. */
export function idempotencyKeyHeader(): OperationMiddleware {
  return {
    before: function idempotencyKeyHeaderBefore(request) {
      request.context.idempotencyKey = checkedIdempotencyKey(request.event);
    },
  };
}

/** What identifies a request: the key, scoped to its customer, and the body it came with. */
export interface IdempotentRequest {
  customerId: string;
  key: string;
  /** The parsed JSON body: its fingerprint ignores white space and the order of members, not their values. */
  body: unknown;
}

/** The JSON body of a request the body step has already accepted. */
export function parsedBody(event: ApiEvent): unknown {
  if (event.body == null) return null;
  return JSON.parse(Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8').toString('utf8'));
}

/** Runs a handler idempotently: the stored answer for a key already used, else `run()`'s, remembered. */
export type IdempotentRunner = (request: IdempotentRequest, context: Context, run: () => Promise<ApiResult>) => Promise<ApiResult>;
