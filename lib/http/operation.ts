/**
 * Builds the Middy chain of one operation from its route definition. Every handler in functions/ is
 * `operation(route, fn)`, so every operation gets the same steps in the same order:
 *   before: the Lambda context for log lines → request headers normalised → the authorizer's context → the rate limiter → (deprecated routes) the
 *           call recorded and 410 after the sunset → (routes with them) path parameters → (routes with one) the
 *           JSON body. Body and parameter errors come after admission: a request with a bad body counts.
 *   onError: the error becomes its Error answer first (http-errors.ts), then the rate-limit headers and the
 *           common headers go on it; `after` adds the same headers to a success.
 * The stores the chain needs are built here, at the function's cold start.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import type { AuthContext } from '../auth/context.js';
import { config, tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import { logContext } from '../log.js';
import { deprecatedCallStore } from '../rate-limit/deprecated-calls.js';
import { dynamoRateLimiter } from '../rate-limit/dynamo-limiter.js';
import type { UsageSnapshot } from '../rate-limit/limiter.js';
import type { Quota, Route } from '../routes.js';
import { authContext } from './auth-context.js';
import type { OperationContext, OperationInternal } from './context.js';
import { deprecated } from './deprecation.js';
import { httpErrors } from './http-errors.js';
import { jsonBody } from './json-body.js';
import { pathParams } from './path-params.js';
import { rateLimit } from './rate-limit.js';
import type { ApiEvent, ApiResult } from './response.js';
import { responseHeaders } from './response-headers.js';

/** What a handler is given: the caller, its checked body and parameters, and for a peek route the usage it read. */
export type HandlerContext<TQuota extends Quota, TBody> = Context & {
  auth: AuthContext;
  body: TBody;
  params: Record<string, string>;
} & (TQuota extends 'peek' ? { usage: UsageSnapshot } : unknown);

export type OperationHandler<TQuota extends Quota, TBody> = (event: ApiEvent, context: HandlerContext<TQuota, TBody>) => Promise<ApiResult>;

export function operation<TQuota extends Quota, TBody>(route: Route<TQuota, TBody>, handler: OperationHandler<TQuota, TBody>) {
  const db = documentClient();
  const counters = tableName('COUNTERS_TABLE');
  const limiter = dynamoRateLimiter(db, counters, { banSeconds: config().BAN_SECONDS, usageRetentionDays: config().USAGE_RETENTION_DAYS });
  const chain = middy<ApiEvent, ApiResult, Error, OperationContext, OperationInternal>()
    .use(logContext())
    .use(responseHeaders(route))
    .use(httpHeaderNormalizer())
    .use(authContext())
    .use(rateLimit(route, limiter));
  if (route.deprecation) chain.use(deprecated(route, route.deprecation, deprecatedCallStore(db, counters)));
  if (route.params) chain.use(pathParams(route.params));
  if (route.body) chain.use(jsonBody(route.body));
  // Last in, so its onError runs first and the steps above decorate the answer it builds.
  chain.use(httpErrors());
  // By now the chain has checked what the route declares: the caller, the body against its schema, the
  // parameters, and for a peek route the usage it read; TypeScript cannot follow a route's quota to its context.
  return chain.handler((event, context) => handler(event, context as HandlerContext<TQuota, TBody>));
}
