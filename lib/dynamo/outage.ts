/**
 * Which DynamoDB failures mean "try again later" (503 with Retry-After) rather than a bug (500). The SDK has
 * already retried these with backoff by the time they reach us.
 */
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

export function isDynamoUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown };
  if (e.name && RETRYABLE_NAMES.has(e.name)) return true;
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  if (e.name === 'AggregateError' || e.cause) return isDynamoUnavailable(e.cause) || aggregateUnavailable(error);
  return false;
}

function aggregateUnavailable(error: unknown): boolean {
  const errors = (error as { errors?: unknown[] }).errors;
  return Array.isArray(errors) && errors.some(isDynamoUnavailable);
}

/** Seconds a client should wait after a 503. */
export const UNAVAILABLE_RETRY_AFTER = '2';
