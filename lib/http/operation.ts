/**
 * An operation's Lambda handler from its route: every handler in functions/ is `operation(route, …)`, typed by its
 * route. Middy keeps the Lambda context on log lines, header names lower-cased, a timeout before Lambda's, and parses
 * a route's body; the rest is pipeline.ts. `processRateLimiter` is shared by every operation of the process.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import type { AuthContext } from '../auth/context.js';
import { config, tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import type { IdempotentRunner } from '../idempotency/key.js';
import { log, logContext } from '../log.js';
import { dynamoRateLimiter } from '../rate-limit/dynamo-limiter.js';
import type { RateLimiter, UsageSnapshot } from '../rate-limit/limiter.js';
import { refusalCache } from '../rate-limit/refusal-cache.js';
import { statusMemory } from '../rate-limit/status-memory.js';
import type { Quota, Route } from '../routes.js';
import { type RequestInput, requestPath, type Steps } from './pipeline.js';
import type { ApiEvent, ApiResult } from './response.js';

/** Middy ends a request this long before its Lambda timeout, answered 503, where Lambda's kill would leave a 5xx. */
const TIMEOUT_EARLY_MS = 500;

/** What a handler is given: the caller, its checked body and parameters, and for a peek route the usage it read. */
export type OperationInput<TQuota extends Quota, TBody> = {
  caller: AuthContext;
  body: TBody;
  params: Record<string, string>;
} & (TQuota extends 'peek' ? { usage: UsageSnapshot } : unknown);

/** The operation itself: it returns its route's success body, or throws (an HttpError, or a domain error). */
export type OperationHandler<TQuota extends Quota, TBody, TSuccess> = (input: OperationInput<TQuota, TBody>) => Promise<TSuccess>;

interface Definition<TQuota extends Quota, TBody, TSuccess> {
  handle: OperationHandler<TQuota, TBody, TSuccess>;
  /** Reads a cold instance needs (createCategory's counter), started before admission; no writes, no throws. */
  prepare?: () => void;
  /** A route with a body: its body step, `jsonBody` (json-body.ts), so that no other bundle carries it. */
  readBody?: Steps['readBody'];
}

/** An idempotent route's handler file hands over its runner: `idempotentRunner(route)` (lib/idempotency/runner.ts). */
export interface IdempotentDefinition<TQuota extends Quota, TBody, TSuccess> extends Definition<TQuota, TBody, TSuccess> {
  idempotency: IdempotentRunner;
}

/** Any other route's gives none. */
export interface PlainDefinition<TQuota extends Quota, TBody, TSuccess> extends Definition<TQuota, TBody, TSuccess> {
  idempotency?: never;
}

/** What `operation` takes for a route: a definition, or for a route that is not idempotent its handler alone. */
export type OperationDefinition<TQuota extends Quota, TBody, TIdempotent extends boolean, TSuccess> = [TIdempotent] extends [true]
  ? IdempotentDefinition<TQuota, TBody, TSuccess>
  : [TIdempotent] extends [false]
    ? PlainDefinition<TQuota, TBody, TSuccess> | OperationHandler<TQuota, TBody, TSuccess>
    : never;

type AnyDefinition<TQuota extends Quota, TBody, TSuccess> =
  | IdempotentDefinition<TQuota, TBody, TSuccess>
  | PlainDefinition<TQuota, TBody, TSuccess>
  | OperationHandler<TQuota, TBody, TSuccess>;

function definitionOf<TQuota extends Quota, TBody, TSuccess>(
  given: AnyDefinition<TQuota, TBody, TSuccess>,
): Definition<TQuota, TBody, TSuccess> & { idempotency?: IdempotentRunner } {
  return typeof given === 'function' ? { handle: given } : given;
}

export function operation<TQuota extends Quota, TBody, TIdempotent extends boolean, TSuccess>(
  route: Route<TQuota, TBody, TIdempotent, TSuccess>,
  // Typed by the route alone: a handler returning what its route does not answer is an error, not another type.
  given: NoInfer<OperationDefinition<TQuota, TBody, TIdempotent, TSuccess>>,
) {
  const { handle, prepare, idempotency, readBody } = definitionOf(given);
  const { respond, backstop } = requestPath(
    route,
    // The request path has checked what the route declares (the body against its schema, a peek route's usage), but
    // TypeScript cannot follow a route's quota and body schema to the input it builds.
    { handle: handle as (input: RequestInput) => Promise<TSuccess>, prepare, idempotency, readBody },
    processRateLimiter(),
  );
  return middy<ApiEvent, ApiResult, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(logContext())
    .use(httpHeaderNormalizer())
    .use({ onError: backstop })
    .use(readBody?.middlewares ?? [])
    .handler(respond);
}

let limiter: RateLimiter | undefined;

/**
 * The rate limiter of this process, built on first use and shared by every operation, so what one learned of a
 * refused customer spares the others their DynamoDB calls: refusal-cache.ts over status-memory.ts over dynamo-limiter.ts.
 */
export function processRateLimiter(): RateLimiter {
  limiter ??= refusalCache(
    statusMemory(
      dynamoRateLimiter(documentClient(), tableName('COUNTERS_TABLE'), {
        banSeconds: config().BAN_SECONDS,
        usageRetentionDays: config().USAGE_RETENTION_DAYS,
      }),
    ),
    {
      // Only the timer's write of leftover refusals gets here; they stay pending for the next request's write.
      onBackgroundError: (error) => log.warn('refusals not yet counted toward the ban: the write failed', { error }),
    },
  );
  return limiter;
}
