/**
 * Builds the Middy chain of one operation from its route. Every handler in functions/ is `operation(id, fn)`,
 * so every operation gets the same chain in the same order: the Lambda context for log lines, boundary (errors and
 * headers), header normalisation, the authorizer's context, the rate limiter, then for operations with a body its
 * checks and the JSON parser.
 * Body errors come after admission: a request with a bad body is an admitted request and counts.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { logContext } from '../log.js';
import { counters } from '../rate-limit/instance.js';
import { type OperationId, routeFor } from '../routes.js';
import { authContext } from './auth-context.js';
import { bodyGuard } from './body-guard.js';
import { httpBoundary } from './boundary.js';
import { type RateLimitedContext, rateLimit } from './rate-limit.js';
import type { ApiEvent, ApiResult } from './response.js';

export type OperationHandler = (event: ApiEvent, context: RateLimitedContext) => Promise<ApiResult>;

export function operation(operationId: OperationId, handler: OperationHandler) {
  const route = routeFor(operationId);
  const chain = middy<ApiEvent, ApiResult | undefined>()
    .use(logContext())
    .use(httpBoundary(route))
    .use(httpHeaderNormalizer())
    .use(authContext())
    .use(rateLimit(route, counters));
  if (route.hasBody) {
    // bodyGuard has checked the media type (case-insensitively, which the parser's own check is not); the
    // option exists in the parser's code but not in its type declarations.
    const parserOptions = { disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0];
    chain.use(bodyGuard()).use(httpJsonBodyParser(parserOptions));
  }
  return chain.handler((event, context) => handler(event, context as RateLimitedContext));
}
