/**
 * Which DynamoDB failures mean "try again later" (503 with Retry-After) rather than a bug (500). The SDK has
 * already retried these with backoff by the time they reach us.
 */
import * as v from 'valibot';

const RETRYABLE_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What SDK and network errors carry that tells a passing outage apart; anything else is not one. */
const FailureSchema = v.looseObject({
  name: v.optional(v.unknown()),
  code: v.optional(v.unknown()),
  $metadata: v.optional(v.looseObject({ httpStatusCode: v.optional(v.unknown()) })),
  cause: v.optional(v.unknown()),
  errors: v.optional(v.unknown()),
});

export function isDynamoUnavailable(error: unknown): boolean {
  const parsed = v.safeParse(FailureSchema, error);
  if (!parsed.success) return false;
  const e = parsed.output;
  if (typeof e.name === 'string' && RETRYABLE_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (typeof e.$metadata?.httpStatusCode === 'number' && e.$metadata.httpStatusCode >= 500) return true;
  if (e.cause !== undefined && isDynamoUnavailable(e.cause)) return true;
  return Array.isArray(e.errors) && e.errors.some(isDynamoUnavailable);
}

/** Seconds a client should wait after a 503. */
export const UNAVAILABLE_RETRY_AFTER = '2';
