/**
 * The request path of every operation in one function, `respond`, read top to bottom: the caller, `prepare`,
 * admission (a read-only operation alongside the count), parameters, Idempotency-Key and body, the deprecation
 * check, the handler (under a key's runner), `finish`. `backstop` is Middy's onError.
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { authorizationValues, REPEATED_AUTHORIZATION_MESSAGE } from '../auth/authorization-header.js';
import { type AuthContext, AuthContextSchema } from '../auth/context.js';
import type { IdempotentRunner } from '../idempotency/key.js';
import type { RateLimiter, UsageSnapshot } from '../rate-limit/limiter.js';
import type { ParamsSchema, Route } from '../routes.js';
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE } from './answer-headers.js';
import { admit, type Decision } from './decision.js';
import { HttpError } from './error-codes.js';
import { type Ending, finish } from './finish.js';
import type { BodyStep, RequestBody } from './json-body.js';
import type { ApiEvent, ApiResult, Result } from './response.js';
import { deprecatedCall } from './stability.js';
import { errorAnswer } from './to-http-error.js';

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
  /** A route's JSON body (json-body.ts): given by the handler file of a route with a body only. */
  readBody?: BodyStep;
}

/** Admissions in flight, by event: what `backstop` shows of a request that Middy's timeout ended. */
const admissions = new WeakMap<ApiEvent, Promise<Decision>>();

const requestIdOf = (event: ApiEvent, context: Context) => event.requestContext?.requestId ?? context.awsRequestId;

/** Work that may fail, as an ending that never rejects: it can wait (alongside admission) without being awaited. */
const endingOf = (work: Promise<Result>): Promise<Ending> =>
  work.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );

/** What the request asks of the operation, each part read once. */
interface Input {
  params: Record<string, string>;
  key: string | undefined;
  body: RequestBody | undefined;
}

export function requestPath(route: Route, steps: Steps, limiter: RateLimiter) {
  const { readBody } = steps;
  if (route.body && !readBody) throw new Error(`${route.operationId} takes a body: its handler file gives readBody`);
  /**
   * Parameters, Idempotency-Key and body, in the order a client fixes them; their refusals wait for admission.
   * `failure`: what ended the Middy chain before `respond` (the body's middlewares).
   */
  function readInput(event: ApiEvent, failure: unknown): Input {
    const params = route.params ? pathParams(route.params, event) : {};
    const key = route.idempotent ? steps.idempotency?.keyOf(event) : undefined;
    if (key !== undefined) steps.idempotency?.prepare?.();
    if (route.body && readBody) return { params, key, body: readBody.read(route.body, event, failure) };
    if (failure !== undefined) throw failure;
    return { params, key, body: undefined };
  }

  /** The operation's result: its success, or the answer to what it threw (a key's runner remembers a 4xx, not a 5xx). */
  async function resultOf(handling: Promise<unknown>, requestId: string): Promise<Result> {
    try {
      const body = await handling;
      if (!route.success) throw new Error(`${route.operationId} has no success answer, yet its handler returned one`);
      return { status: route.success.status, body, headers: {} };
    } catch (error) {
      return errorAnswer(error, requestId);
    }
  }

  /** The operation on the request's input: a deprecated route's check first, then the handler (under a key's runner). */
  async function operate(reading: Promise<Input>, context: Context, caller: AuthContext, requestId: string, usage?: UsageSnapshot) {
    if (route.deprecation) deprecatedCall(route, route.deprecation, caller);
    const { params, key, body } = await reading;
    const run = () => resultOf(steps.handle({ caller, body: body?.value, params, usage }), requestId);
    if (key === undefined || !steps.idempotency) return run();
    return steps.idempotency({ customerId: caller.customerId, key, body: body?.json }, context, run);
  }

  async function respond(event: ApiEvent, context: Context, failure?: unknown): Promise<ApiResult> {
    const requestId = requestIdOf(event, context);
    let rateLimit: Record<string, string> | undefined;
    try {
      const caller = callerOf(event);
      steps.prepare?.();
      const admitting = admit(route, caller, limiter);
      admissions.set(event, admitting.decision);
      // Read once the count is started (an operation alongside it starts its own call with it); a rejected read is
      // answered after admission, by `operate`. No turn of the event loop is waited for: docs/performance.md.
      const reading = Promise.resolve().then(() => readInput(event, failure));
      reading.catch(() => undefined);
      const alongside = admitting.alongside ? endingOf(operate(reading, context, caller, requestId)) : undefined;
      const { refusal, headers, usage, record } = await admitting.decision;
      rateLimit = headers;
      // A refusal wins over whatever the operation alongside did.
      if (refusal) {
        record();
        throw refusal;
      }
      const operating = alongside ?? endingOf(operate(reading, context, caller, requestId, usage));
      record();
      return finish(route, requestId, await operating, rateLimit);
    } catch (error) {
      return finish(route, requestId, { error }, rateLimit);
    }
  }

  /**
   * Middy's onError. Before `respond` has run, the body's middlewares refused the request: `respond` answers it,
   * counted. After, Middy's timeout ended it: the answer says so, with the admission's headers if it decided.
   */
  async function backstop(request: middy.Request<ApiEvent, ApiResult, Error, Context>): Promise<void> {
    const admission = admissions.get(request.event);
    if (!admission) {
      request.response = await respond(request.event, request.context, request.error);
      return;
    }
    let error: unknown = request.error;
    let rateLimit: Record<string, string> | undefined;
    try {
      const { refusal, headers, record } = await admission;
      record();
      rateLimit = headers;
      error = refusal ?? error;
    } catch (failure) {
      error = failure;
    }
    request.response = finish(route, requestIdOf(request.event, request.context), { error }, rateLimit);
  }

  // Middy calls a handler with a third argument of its own.
  return { respond: (event: ApiEvent, context: Context) => respond(event, context), backstop };
}

export function pathParams(schema: ParamsSchema, event: ApiEvent): Record<string, string> {
  // A missing parameter is an empty one: the route would not have matched without it.
  const given = Object.fromEntries(Object.keys(schema.entries).map((name) => [name, event.pathParameters?.[name] ?? '']));
  const result = v.safeParse(schema, given);
  if (!result.success) throw new HttpError('VALIDATION_FAILED', result.issues[0]?.message ?? 'A path parameter is not valid');
  return result.output;
}

/**
 * What the authorizer passed, checked, never trusted. More than one Authorization header is refused: API Gateway
 * caches the authorizer's decision by one header value, so an Allow cached for one key could let two through.
 */
export function callerOf(event: ApiEvent): AuthContext {
  if (authorizationValues(event.headers, event.multiValueHeaders).length > 1) {
    throw new HttpError('UNAUTHORIZED', REPEATED_AUTHORIZATION_MESSAGE, { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE });
  }
  const parsed = v.safeParse(AuthContextSchema, event.requestContext?.authorizer);
  if (!parsed.success) {
    throw new HttpError('UNAUTHORIZED', 'The request carries no valid API key: send Authorization: Bearer <API key>', {
      'WWW-Authenticate': BEARER_CHALLENGE,
    });
  }
  return parsed.output;
}
