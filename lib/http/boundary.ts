/**
 * The HTTP boundary middleware: the first in every chain, so its `after` and `onError` run last. It turns any
 * error into the contract's Error body (internals never leak: unknown errors become INTERNAL_ERROR and are
 * logged with the request id) and puts the headers every response carries on success and error alike.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { isDynamoUnavailable, UNAVAILABLE_RETRY_AFTER } from '../dynamo/outage.js';
import { log } from '../log.js';
import type { Route } from '../routes.js';
import { HttpError } from './errors.js';
import { GATEWAY_RATE_LIMIT_HEADERS } from './gateway-responses.js';
import { type ApiEvent, type ApiResult, json } from './response.js';
import { routeHeaders } from './route-headers.js';

export type ApiRequest = middy.Request<ApiEvent, ApiResult | undefined, Error, Context, Record<string, unknown>>;

/** Headers a middleware earlier in the chain wants on the response, whatever the outcome (rate-limit headers). */
export function addResponseHeaders(request: ApiRequest, headers: Record<string, string>): void {
  request.internal.responseHeaders = { ...(request.internal.responseHeaders as Record<string, string>), ...headers };
}

export function toHttpError(error: unknown, requestId: string): HttpError {
  if (error instanceof HttpError) return error;
  const middyStatus = (error as { statusCode?: number; expose?: boolean }).statusCode;
  if (middyStatus === 415) {
    // @middy/http-json-body-parser signals unparseable JSON with 415; the content type was checked before it.
    return new HttpError('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  if (isDynamoUnavailable(error)) {
    log.warn('dependency unavailable', { requestId, error: describe(error) });
    return new HttpError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry after the time in Retry-After', {
      'Retry-After': UNAVAILABLE_RETRY_AFTER,
    });
  }
  log.error('unhandled error', { requestId, error: describe(error) });
  return new HttpError('INTERNAL_ERROR', `Something went wrong on our side; quote request id ${requestId} if it persists`);
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}

export function httpBoundary(route: Route): middy.MiddlewareObj<ApiEvent, ApiResult | undefined> {
  const staticHeaders = routeHeaders(route);

  const decorate = (request: ApiRequest) => {
    const response = request.response as ApiResult;
    response.headers = {
      // Replaced by the rate limiter's headers once the customer is known (see GATEWAY_RATE_LIMIT_HEADERS).
      ...GATEWAY_RATE_LIMIT_HEADERS,
      ...response.headers,
      ...(request.internal.responseHeaders as Record<string, string> | undefined),
      ...staticHeaders(),
      'X-Request-Id': request.event.requestContext?.requestId ?? request.context.awsRequestId,
    };
  };

  return {
    after: function httpBoundaryAfter(request) {
      decorate(request as ApiRequest);
    },
    onError: function httpBoundaryOnError(request) {
      const requestId = request.event.requestContext?.requestId ?? request.context.awsRequestId;
      const error = toHttpError(request.error, requestId);
      request.response = json(error.status, error.toJSON(), error.headers);
      decorate(request as ApiRequest);
    },
  };
}
