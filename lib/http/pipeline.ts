/**
 * The request path of every operation, in one function that reads top to bottom (`respond`): the caller → (routes
 * that give one) `prepare`, started and not awaited → admission, with the operation alongside where the route only
 * reads → parameters, Idempotency-Key and body, each read once → the handler, inside the idempotency runner for a
 * request with a key → `finish`, which builds every answer. The steps are modules of their own that know nothing of
 * each other; the order is this function's.
 *
 * Middy keeps what it is good at around it (operation.ts): the Lambda context for log lines, header names
 * lower-cased, and the timeout before Lambda's. That timeout ends `respond` from outside, so `backstop`, its onError,
 * answers through the same `finish` with what the request had got to: the admission in flight is kept here, by
 * event, for it.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { AuthContext } from '../auth/context.js';
import type { RateLimiter, UsageSnapshot } from '../rate-limit/limiter.js';
import type { Route } from '../routes.js';
import { admit, type Decision } from './admission.js';
import { callerOf } from './caller.js';
import { deprecatedCall } from './deprecation.js';
import { finish, type Outcome } from './finish.js';
import { errorResult, toHttpError } from './http-errors.js';
import { type IdempotentRunner, idempotencyKeyOf } from './idempotency-key.js';
import { requestBody } from './json-body.js';
import { pathParams } from './path-params.js';
import type { ApiEvent, ApiResult, Result } from './response.js';

/** What a handler is given, whatever its route (operation.ts types it per route). */
export interface RequestInput {
  caller: AuthContext;
  body: unknown;
  params: Record<string, string>;
  /** The windows a peek route read. */
  usage?: UsageSnapshot;
}

/** An operation's parts, as its handler file gave them (operation.ts). */
export interface Steps {
  /** Returns the success body, or throws. */
  handle: (input: RequestInput) => Promise<unknown>;
  /** Read-only work started before admission, so that it overlaps the count's round trip; must not throw. */
  prepare?: () => void;
  idempotency?: IdempotentRunner;
}

/** Admissions in flight, by event: what `backstop` shows of a request that Middy's timeout ended. */
const admissions = new WeakMap<ApiEvent, Promise<Decision>>();

const requestIdOf = (event: ApiEvent, context: Context) => event.requestContext?.requestId ?? context.awsRequestId;

/** Work that may fail, as an outcome that never rejects: it can wait (alongside admission) without being awaited. */
const outcomeOf = (work: Promise<Result>): Promise<Outcome> =>
  work.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );

export function requestPath(route: Route, steps: Steps, limiter: RateLimiter) {
  /**
   * The operation's result: its success, or the 4xx it refused with (which a key remembers like a success, as the
   * IETF draft asks); a 5xx stays an error, so that nothing is remembered and a retry runs again.
   */
  async function resultOf(handling: Promise<unknown>, requestId: string): Promise<Result> {
    try {
      const body = await handling;
      if (!route.success) throw new Error(`${route.operationId} has no success answer, yet its handler returned one`);
      return { status: route.success.status, body, headers: {} };
    } catch (error) {
      const refusal = toHttpError(error, requestId);
      if (refusal.status >= 500) throw refusal;
      return errorResult(refusal);
    }
  }

  /** What the request asks of the operation, each part read once, and the operation run on it. */
  async function operate(event: ApiEvent, context: Context, caller: AuthContext, usage: UsageSnapshot | undefined): Promise<Result> {
    if (route.deprecation) deprecatedCall(route, route.deprecation, caller);
    const params = route.params ? pathParams(route.params, event) : {};
    const key = route.idempotent ? idempotencyKeyOf(event) : undefined;
    const body = route.body ? requestBody(route.body, event, context) : undefined;
    const run = () => resultOf(steps.handle({ caller, body: body?.value, params, usage }), requestIdOf(event, context));
    if (key === undefined || !steps.idempotency) return run();
    return steps.idempotency({ customerId: caller.customerId, key, body: body?.json }, context, run);
  }

  async function respond(event: ApiEvent, context: Context): Promise<ApiResult> {
    const requestId = requestIdOf(event, context);
    let rateLimit: Record<string, string> | undefined;
    try {
      const caller = callerOf(event);
      steps.prepare?.();
      const admitting = admit(route, caller, limiter);
      admissions.set(event, admitting.decision);
      const alongside = admitting.alongside ? outcomeOf(operate(event, context, caller, undefined)) : undefined;
      const { refusal, headers, usage } = await admitting.decision;
      rateLimit = headers;
      // A refusal wins over whatever the operation alongside did.
      if (refusal) throw refusal;
      return finish(route, requestId, await (alongside ?? outcomeOf(operate(event, context, caller, usage))), rateLimit);
    } catch (error) {
      return finish(route, requestId, { error }, rateLimit);
    }
  }

  /** Middy's onError: the timeout answer (or any error outside `respond`), with the admission's headers if it decided. */
  async function backstop(request: middy.Request<ApiEvent, ApiResult, Error, Context>): Promise<void> {
    const admission = admissions.get(request.event);
    let error: unknown = request.error;
    let rateLimit: Record<string, string> | undefined;
    if (admission) {
      try {
        const { refusal, headers } = await admission;
        rateLimit = headers;
        error = refusal ?? error;
      } catch (failure) {
        error = failure;
      }
    }
    request.response = finish(route, requestIdOf(request.event, request.context), { error }, rateLimit);
  }

  return { respond, backstop };
}
