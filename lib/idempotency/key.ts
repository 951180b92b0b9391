/**
 * The Idempotency-Key header of the routes that declare `idempotent`: absent, or one value of 1 to 255 printable
 * ASCII characters, else 400 VALIDATION_FAILED. What a key does is runner.ts's; this module stays free of the
 * idempotency library, which only the functions of idempotent routes should carry.
 */
import type { Context } from 'aws-lambda';
import { FUNCTION_SETTINGS } from '../function-settings.js';
import { HttpError } from '../http/error-codes.js';
import type { ApiEvent, Result } from '../http/response.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX, REMEMBERED_SECONDS, REPLAYED_HEADER } from './names.js';

export { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX, REMEMBERED_SECONDS, REPLAYED_HEADER };
/** Seconds a claim on a key can outlive the request that made it: the function's timeout (see runner.ts). */
export const CLAIM_LAPSES_AFTER_SECONDS = FUNCTION_SETTINGS.operationTimeoutSeconds;
/** The header's rule in words, for messages and the OpenAPI document. */
export const IDEMPOTENCY_KEY_RULE = `1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;
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
export function idempotencyKeyOf(event: ApiEvent): string | undefined {
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

/** What identifies a request: the key, scoped to its customer, and the body it came with. */
export interface IdempotentRequest {
  customerId: string;
  key: string;
  /** The parsed JSON body: its fingerprint ignores white space and the order of members, not their values. */
  body: unknown;
}

/**
 * Runs an operation idempotently: the result remembered for a key already used, else `run()`'s, remembered.
 * `prepare` (no writes, no throws) starts loading the library while admission decides. `keyOf` is read through the
 * runner so that only idempotent routes' bundles carry this module.
 */
export type IdempotentRunner = ((request: IdempotentRequest, context: Context, run: () => Promise<Result>) => Promise<Result>) & {
  prepare?: () => void;
  keyOf: (event: ApiEvent) => string | undefined;
};
