/**
 * Errors into the contract's Error results: the one place where HttpErrors, domain errors, SDK failures and Middy's
 * timeout become codes. Internals never leak: anything unknown becomes INTERNAL_ERROR, logged with the request id.
 */
import { isDynamoUnavailable, UNAVAILABLE_RETRY_AFTER } from '../dynamo/backoff.js';
import { log } from '../log.js';
import { type ErrorCode, HttpError } from './error-codes.js';
import type { Result } from './response.js';

const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry after the time in Retry-After';
/** The domain's errors (lib/categories/store.ts), by name, so that a function that never throws them lacks their module. */
const DOMAIN_ERRORS: Readonly<Record<string, { code: ErrorCode; headers?: Record<string, string> }>> = {
  CategoryExists: { code: 'CATEGORY_EXISTS' },
  CategoryLimitReached: { code: 'CATEGORY_LIMIT_REACHED' },
  CategoryContention: { code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } },
};

function toHttpError(error: unknown, requestId: string): HttpError {
  if (error instanceof HttpError) return error;
  const domain = error instanceof Error && Object.hasOwn(DOMAIN_ERRORS, error.name) ? DOMAIN_ERRORS[error.name] : undefined;
  if (domain && error instanceof Error) return new HttpError(domain.code, error.message, domain.headers);
  // Middy's TimeoutError (a handler still running near Lambda's timeout) is one of these by its name.
  if (isDynamoUnavailable(error)) {
    log.warn('dependency unavailable', { requestId, error: describe(error) });
    return new HttpError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE, { 'Retry-After': UNAVAILABLE_RETRY_AFTER });
  }
  log.error('unhandled error', { requestId, error: describe(error) });
  return new HttpError('INTERNAL_ERROR', `Something went wrong on our side; quote request id ${requestId} if it persists`);
}

/** The one place an error becomes an answer: the contract's Error shape, with the headers that belong to the error. */
export function errorAnswer(error: unknown, requestId: string): Result {
  const refusal = toHttpError(error, requestId);
  return { status: refusal.status, body: refusal.toJSON(), headers: refusal.headers };
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}
