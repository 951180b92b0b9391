/**
 * Builds the Middy chain of one operation from its route. Every handler in functions/ is `operation(id, fn)`,
 * so every operation gets the same boundary, header normalisation, body checks and (as they land) the
 * authorizer context and the rate limiter, in the same order.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { Context } from 'aws-lambda';
import { type OperationId, routeFor } from '../routes.js';
import { bodyGuard } from './body-guard.js';
import { httpBoundary } from './boundary.js';
import type { ApiEvent, ApiResult } from './response.js';

export type OperationHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

export function operation(operationId: OperationId, handler: OperationHandler) {
  const route = routeFor(operationId);
  const chain = middy<ApiEvent, ApiResult | undefined>().use(httpBoundary(route)).use(httpHeaderNormalizer());
  if (route.hasBody) {
    // bodyGuard has checked the media type (case-insensitively, which the parser's own check is not); the
    // option exists in the parser's code but not in its type declarations.
    const parserOptions = { disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0];
    chain.use(bodyGuard()).use(httpJsonBodyParser(parserOptions));
  }
  return chain.handler(handler);
}
