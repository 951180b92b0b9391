/**
 * The local stand-in for API Gateway's REQUEST authorizer: the identity source (no Authorization header: 401 without
 * invoking), the Lambda timeout, the result cache (AUTHORIZER_CACHE_TTL, 0 locally unless set), the policy against
 * the method ARN, the gateway response of a failed invocation, and the context handed on.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import * as v from 'valibot';
import type { GatewayResponseType } from '../../lib/api-gateway/gateway-responses.js';
import { localConfig } from '../../lib/config.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { gatewayLog } from '../../lib/log.js';
import { authorizerEvent, methodArn } from './events.js';

export type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent, context: unknown) => Promise<unknown>;

export type AuthOutcome =
  | {
      allowed: true;
      context: NonNullable<APIGatewayProxyEvent['requestContext']['authorizer']>;
      /** The API key the authorizer named for usage plans (API key source AUTHORIZER), if it named one. */
      usageIdentifierKey?: string;
    }
  | { allowed: false; response: GatewayResponseType; message?: string };

const ttlSeconds = localConfig().AUTHORIZER_CACHE_TTL;
export const AUTHORIZER_TIMEOUT_MS = FUNCTION_SETTINGS.authorizerTimeoutSeconds * 1000;

/**
 * An invocation that gave API Gateway no policy, and the gateway response it gets. AWS ("Use API Gateway Lambda
 * authorizers", "Output from an Amazon API Gateway Lambda authorizer", "Gateway response types for API Gateway"):
 * failing with "Unauthorized" is a 401; any other error a 500; the output must hold principalId and a policyDocument,
 * with flat context values. Which 500 type is not documented: API Gateway is observed to send
 * AuthorizerConfigurationException for a throw, a timeout and an invalid output alike, so AUTHORIZER_CONFIGURATION_ERROR
 * is modelled; both 500 types map to 503 (lib/api-gateway/gateway-responses.ts).
 */
export class AuthorizerInvocationError extends Error {
  constructor(
    readonly response: Extract<GatewayResponseType, 'UNAUTHORIZED' | 'AUTHORIZER_CONFIGURATION_ERROR'>,
    readonly reason: 'unauthorized' | 'error' | 'timeout' | 'invalid-output',
    options?: { cause?: unknown },
  ) {
    super(`authorizer invocation failed: ${reason}`, options);
    this.name = 'AuthorizerInvocationError';
  }
}

const AuthorizerOutput = v.looseObject({
  principalId: v.string(),
  policyDocument: v.looseObject({ Statement: v.array(v.unknown()) }),
  context: v.nullish(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
});

function isValidOutput(output: unknown): output is APIGatewayAuthorizerResult {
  return v.is(AuthorizerOutput, output);
}

/** Runs the authorizer as API Gateway does: cut off after timeoutMs, anything but a usable policy an AuthorizerInvocationError. */
export async function invokeAuthorizer(
  handler: AuthorizerHandler,
  event: APIGatewayRequestAuthorizerEvent,
  timeoutMs = AUTHORIZER_TIMEOUT_MS,
): Promise<APIGatewayAuthorizerResult> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AuthorizerInvocationError('AUTHORIZER_CONFIGURATION_ERROR', 'timeout')), timeoutMs);
  });
  let output: unknown;
  try {
    output = await Promise.race([handler(event, {}), timedOut]);
  } catch (error) {
    if (error instanceof AuthorizerInvocationError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (message === 'Unauthorized') throw new AuthorizerInvocationError('UNAUTHORIZED', 'unauthorized', { cause: error });
    throw new AuthorizerInvocationError('AUTHORIZER_CONFIGURATION_ERROR', 'error', { cause: error });
  } finally {
    clearTimeout(timer);
  }
  if (!isValidOutput(output)) throw new AuthorizerInvocationError('AUTHORIZER_CONFIGURATION_ERROR', 'invalid-output');
  return output;
}

/**
 * Cached results by header value; the entry holds the promise, so concurrent requests share one invocation, and the
 * policy's effect on each method ARN it was checked against.
 */
const cache = new Map<string, { expires: number; result: Promise<APIGatewayAuthorizerResult>; effects: Map<string, 'Allow' | 'Deny'> }>();
let handlerPromise: Promise<AuthorizerHandler> | undefined;

function loadAuthorizer(): Promise<AuthorizerHandler> {
  const file = 'authorizer';
  handlerPromise ??= import(`../../functions/${file}.ts`).then((m: { handler: AuthorizerHandler }) => m.handler);
  return handlerPromise;
}

/** A policy's Resource pattern as a regular expression, compiled once: with no cache (TTL 0) every request brings one. */
const resourcePatterns = new Map<string, RegExp>();

function resourceMatches(pattern: string, arn: string): boolean {
  let regex = resourcePatterns.get(pattern);
  if (!regex) {
    const literals = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
    regex = new RegExp(`^${literals.join('.*')}$`);
    if (resourcePatterns.size >= 10_000) resourcePatterns.clear();
    resourcePatterns.set(pattern, regex);
  }
  return regex.test(arn);
}

function effectFor(result: APIGatewayAuthorizerResult, arn: string): 'Allow' | 'Deny' {
  let allowed = false;
  for (const statement of result.policyDocument?.Statement ?? []) {
    const resources = 'Resource' in statement ? [statement.Resource].flat() : [];
    if (!resources.some((r) => typeof r === 'string' && resourceMatches(r, arn))) continue;
    if (statement.Effect === 'Deny') return 'Deny';
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed ? 'Allow' : 'Deny';
}

export async function authorize(event: APIGatewayProxyEvent): Promise<AuthOutcome> {
  let header: string | undefined;
  // One name at most: the event's header names are unique ignoring case (events.ts).
  for (const name of Object.keys(event.headers)) if (name.toLowerCase() === 'authorization') header = event.headers[name];
  if (!header) return { allowed: false, response: 'UNAUTHORIZED' };

  const arn = methodArn(event.httpMethod, event.resource);
  const started = Date.now();
  let entry = cache.get(header);
  if (!entry || entry.expires <= Date.now()) {
    // The authorizer's event is built only when it is invoked: a cached policy answers without it.
    const request = authorizerEvent(event);
    entry = {
      expires: Date.now() + ttlSeconds * 1000,
      result: loadAuthorizer().then((handler) => invokeAuthorizer(handler, request)),
      effects: new Map(),
    };
    if (ttlSeconds > 0) {
      cache.set(header, entry);
      // A failed invocation is not cached: API Gateway caches only policies.
      const failed = entry;
      entry.result.catch(() => cache.get(header) === failed && cache.delete(header));
    }
  }
  let output: APIGatewayAuthorizerResult;
  try {
    output = await entry.result;
  } catch (error) {
    const failure = error instanceof AuthorizerInvocationError ? error : undefined;
    if (failure?.response === 'UNAUTHORIZED') return { allowed: false, response: 'UNAUTHORIZED' };
    gatewayLog.error('authorizer failed', {
      requestId: event.requestContext.requestId,
      reason: failure?.reason,
      error: failure ? failure.cause : error,
    });
    return { allowed: false, response: failure?.response ?? 'AUTHORIZER_CONFIGURATION_ERROR' };
  }
  let effect = entry.effects.get(arn);
  if (!effect) {
    effect = effectFor(output, arn);
    entry.effects.set(arn, effect);
  }
  if (effect === 'Deny') {
    const message = output.context?.message;
    return { allowed: false, response: 'ACCESS_DENIED', ...(typeof message === 'string' ? { message } : {}) };
  }
  // API Gateway hands context values to a REST proxy integration as strings.
  const context: Record<string, string> = { principalId: output.principalId, integrationLatency: String(Date.now() - started) };
  for (const [key, value] of Object.entries(output.context ?? {})) context[key] = String(value);
  return { allowed: true, context, ...(output.usageIdentifierKey ? { usageIdentifierKey: output.usageIdentifierKey } : {}) };
}
