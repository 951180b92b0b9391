/**
 * The types of the operations' Middy chain: what each middleware adds to the Lambda context (the caller, the
 * checked input, the usage a peek read) and the request-scoped state the rate limiter keeps between its steps.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { AuthContext } from '../auth/context.js';
import type { UsageSnapshot } from '../rate-limit/limiter.js';
import type { HttpError } from './errors.js';
import type { ApiEvent, ApiResult } from './response.js';

/**
 * Lambda's context as the steps leave it. Each addition is optional because Lambda calls the handler with the
 * plain context; the steps fill them in order, and `callerOf` tells a step that runs after auth-context.ts.
 */
export interface OperationContext extends Context {
  /** The customer the authorizer found (auth-context.ts). */
  auth?: AuthContext;
  /** The request body after the route's schema (json-body.ts); undefined for routes without one. */
  body?: unknown;
  /** The path parameters after the route's schemas (path-params.ts). */
  params?: Record<string, string>;
  /** The windows a peek read (rate-limit.ts); only peek routes get it, and their handlers' context says so. */
  usage?: UsageSnapshot;
  /** The request's checked Idempotency-Key (idempotency.ts), on routes that take one; undefined when none was sent. */
  idempotencyKey?: string;
}

/** The caller, for the steps after auth-context.ts (which refuses a request without one). */
export function callerOf(context: OperationContext): AuthContext {
  if (!context.auth) throw new Error('the chain runs this step before auth-context');
  return context.auth;
}

export type OperationInternal = {
  /** A count still in flight while a read-only handler runs: the refusal it ends in, if any. */
  pendingRefusal?: Promise<HttpError | undefined>;
  /** The rate-limit headers of this request, once the customer's windows are known. */
  rateLimitHeaders?: Record<string, string>;
};

export type OperationMiddleware = middy.MiddlewareObj<ApiEvent, ApiResult, Error, OperationContext, OperationInternal>;
export type OperationRequest = middy.Request<ApiEvent, ApiResult, Error, OperationContext, OperationInternal>;

/** Adds headers to the response a later step built; no-op while there is none. */
export function addHeaders(request: OperationRequest, headers: Record<string, string>): void {
  if (request.response) request.response.headers = { ...request.response.headers, ...headers };
}
