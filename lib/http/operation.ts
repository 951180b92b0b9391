/**
 * Builds the Middy chain of one operation from its route definition. Every handler in functions/ is
 * `operation(route, fn)`, so every operation gets the same steps in the same order:
 *   before: the Lambda context for log lines → request headers normalised → the authorizer's context → (handlers
 *           that give one) their `prepare`, started and not awaited → the rate limiter (on a deprecated route its
 *           write counts the call too) → (deprecated routes) the call logged and 410 after the sunset → (routes
 *           with them) path parameters → (idempotent routes) the Idempotency-Key header → (routes with one) the
 *           JSON body. Body and parameter errors come after admission: a request with a bad body counts.
 *   handler: on an idempotent route with a key, inside the idempotency utility (idempotency.ts): a replay gets the
 *           stored answer without running the handler, yet passes through every after step like any answer.
 *   onError: the error becomes its Error answer first (http-errors.ts), then the rate-limit headers and the
 *           common headers go on it; `after` adds the same headers to a success.
 * The rate limiter is the process's one (process-limiter.ts), built at the function's cold start, so its memory of
 * refused customers serves every operation the process runs.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import type { AuthContext } from '../auth/context.js';
import { logContext } from '../log.js';
import type { UsageSnapshot } from '../rate-limit/limiter.js';
import { processRateLimiter } from '../rate-limit/process-limiter.js';
import type { Quota, Route } from '../routes.js';
import { authContext } from './auth-context.js';
import { callerOf, type OperationContext, type OperationInternal } from './context.js';
import { deprecated } from './deprecation.js';
import { httpErrors } from './http-errors.js';
import { type IdempotentRunner, idempotencyKeyHeader, parsedBody } from './idempotency-key.js';
import { jsonBody } from './json-body.js';
import { pathParams } from './path-params.js';
import { rateLimit } from './rate-limit.js';
import type { ApiEvent, ApiResult } from './response.js';
import { responseHeaders } from './response-headers.js';

/** Time left for the 503 when a handler runs up to its Lambda timeout. */
const TIMEOUT_EARLY_MS = 500;

/** What a handler is given: the caller, its checked body and parameters, and for a peek route the usage it read. */
export type HandlerContext<TQuota extends Quota, TBody> = Context & {
  auth: AuthContext;
  body: TBody;
  params: Record<string, string>;
} & (TQuota extends 'peek' ? { usage: UsageSnapshot } : unknown);

export type OperationHandler<TQuota extends Quota, TBody> = (event: ApiEvent, context: HandlerContext<TQuota, TBody>) => Promise<ApiResult>;

/** What a handler file adds to its route's chain. */
export interface OperationOptions {
  /** For an idempotent route, `idempotentRunner(route)` (idempotency.ts). */
  idempotency?: IdempotentRunner;
  /**
   * Started, not awaited, before the rate limiter, so that it overlaps the admission round trip: reads a cold
   * instance needs and a warm one has (createCategory's id counter). It must not write, since the request may yet be
   * refused, and must not throw.
   */
  prepare?: () => void;
}

export function operation<TQuota extends Quota, TBody>(
  route: Route<TQuota, TBody>,
  handler: OperationHandler<TQuota, TBody>,
  options: OperationOptions = {},
) {
  // The library behind idempotency is passed in by the route's handler file rather than imported here, so the
  // functions of other routes do not carry it; the route's definition still decides, and a mismatch fails the load.
  const { idempotency, prepare } = options;
  if (Boolean(route.idempotent) !== Boolean(idempotency)) {
    throw new Error(
      `route ${route.operationId}: ${route.idempotent ? 'is idempotent: pass idempotentRunner(route)' : 'is not idempotent'}`,
    );
  }
  // Middy ends a handler still running this long before Lambda's timeout with a TimeoutError, which the error step
  // answers as 503 with Retry-After: room for that answer, where Lambda's kill would leave API Gateway's 5xx.
  const chain = middy<ApiEvent, ApiResult, Error, OperationContext, OperationInternal>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(logContext())
    .use(responseHeaders(route))
    .use(httpHeaderNormalizer())
    .use(authContext());
  if (prepare) chain.use({ before: () => prepare() });
  chain.use(rateLimit(route, processRateLimiter()));
  if (route.deprecation) chain.use(deprecated(route, route.deprecation));
  if (route.params) chain.use(pathParams(route.params));
  if (route.idempotent) chain.use(idempotencyKeyHeader());
  if (route.body) chain.use(jsonBody(route.body));
  // Last in, so its onError runs first and the steps above decorate the answer it builds.
  chain.use(httpErrors());
  return chain.handler((event, context) => {
    // By now the chain has checked what the route declares: the caller, the body against its schema, the
    // parameters, and for a peek route the usage it read; TypeScript cannot follow a route's quota to its context.
    const run = () => handler(event, context as HandlerContext<TQuota, TBody>);
    const key = context.idempotencyKey;
    if (!idempotency || key === undefined) return run();
    return idempotency({ customerId: callerOf(context).customerId, key, body: parsedBody(event) }, context, run);
  });
}
