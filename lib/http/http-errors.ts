/**
 * Errors into the contract's Error answers: the one place where domain errors, SDK failures and Middy's own
 * errors become codes. Internals never leak: anything unknown becomes INTERNAL_ERROR and is logged with the
 * request id. Its onError runs first of the chain's, so later onError steps (rate-limit headers, the common
 * headers) decorate the answer it built.
 */
import { CategoryContention, CategoryExists, CategoryLimitReached } from '../categories/errors.js';
import { isDynamoUnavailable, UNAVAILABLE_RETRY_AFTER } from '../dynamo/outage.js';
import { log } from '../log.js';
import type { OperationMiddleware } from './context.js';
import { HttpError } from './errors.js';
import { type ApiResult, json } from './response.js';

const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry after the time in Retry-After';

export function toHttpError(error: unknown, requestId: string): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof CategoryExists) return new HttpError('CATEGORY_EXISTS', error.message);
  if (error instanceof CategoryLimitReached) return new HttpError('CATEGORY_LIMIT_REACHED', error.message);
  if (error instanceof CategoryContention) return new HttpError('SERVICE_UNAVAILABLE', error.message, { 'Retry-After': '1' });
  if (isDynamoUnavailable(error)) {
    log.warn('dependency unavailable', { requestId, error: describe(error) });
    return new HttpError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE, { 'Retry-After': UNAVAILABLE_RETRY_AFTER });
  }
  log.error('unhandled error', { requestId, error: describe(error) });
  return new HttpError('INTERNAL_ERROR', `Something went wrong on our side; quote request id ${requestId} if it persists`);
}

export function errorAnswer(error: HttpError): ApiResult {
  return json(error.status, error.toJSON(), error.headers);
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}

export function httpErrors(): OperationMiddleware {
  return {
    onError: function httpErrorsOnError(request) {
      const requestId = request.event.requestContext?.requestId ?? request.context.awsRequestId;
      request.response = errorAnswer(toHttpError(request.error, requestId));
    },
  };
}
