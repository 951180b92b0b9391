/**
 * The local stand-in for API Gateway's REQUEST authorizer integration: identity source (the Authorization
 * header; missing means 401 without invoking), the authorizer's Lambda timeout, the result cache
 * (AUTHORIZER_CACHE_TTL seconds, default 0 locally), policy evaluation against the method ARN, the gateway
 * response a failed invocation gets, and the context handed on to the operation.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import * as v from 'valibot';
import type { GatewayResponseType } from '../../lib/api-gateway/gateway-responses.js';
import { localConfig } from '../../lib/config.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { gatewayLog } from '../../lib/log.js';
import { authorizerEvent } from './events.js';

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
/** As deployed: Lambda ends an authorizer that runs longer with an error ("Task timed out"). */
export const AUTHORIZER_TIMEOUT_MS = FUNCTION_SETTINGS.authorizerTimeoutSeconds * 1000;

/**
 * An invocation that gave API Gateway no policy, and the gateway response type it answers with. What AWS
 * documents, for a REST API's Lambda authorizer:
 * - "Use API Gateway Lambda authorizers" (docs.aws.amazon.com/apigateway/latest/developerguide/
 *   apigateway-use-lambda-authorizer.html) and "Call an API with an API Gateway Lambda authorizer"
 *   (…/call-api-with-api-gateway-lambda-authorization.html): an authorizer that fails with "Unauthorized" gets a 401
 *   response; one that fails with any other error gets a 500.
 * - "Output from an Amazon API Gateway Lambda authorizer" (…/api-gateway-lambda-authorizer-output.html): the output
 *   must hold principalId and a policyDocument with a list of statements; context values cannot be objects or
 *   arrays.
 * - "Gateway response types for API Gateway" (…/supported-gateway-response-types.html): UNAUTHORIZED (401) when the
 *   authorizer failed to authenticate the caller; AUTHORIZER_CONFIGURATION_ERROR (500) for failing to connect to
 *   the authorizer; AUTHORIZER_FAILURE (500) when it "failed to authenticate the caller".
 * The docs do not say which of the two 500 types these failures get. What API Gateway is observed to send (reported
 * consistently outside AWS's docs) is the same for a thrown error, a timeout and an invalid output: a 500 with
 * x-amzn-ErrorType: AuthorizerConfigurationException, logged as "Execution failed due to configuration error:
 * Authorizer error", i.e. AUTHORIZER_CONFIGURATION_ERROR; that is what is modelled here. Both 500 types are mapped to
 * 503 in lib/api-gateway/gateway-responses.ts, so either way the client gets SERVICE_UNAVAILABLE with Retry-After.
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

/** What API Gateway can use: principalId, a policy document with a list of statements, flat context values. */
const AuthorizerOutput = v.looseObject({
  principalId: v.string(),
  policyDocument: v.looseObject({ Statement: v.array(v.unknown()) }),
  context: v.nullish(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
});

function isValidOutput(output: unknown): output is APIGatewayAuthorizerResult {
  return v.is(AuthorizerOutput, output);
}

/**
 * Runs the authorizer the way API Gateway invokes it through Lambda: cut off after timeoutMs, and any outcome
 * that is not a usable policy turned into the AuthorizerInvocationError naming the gateway response it gets.
 */
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
 * Cached results, by header value. The entry holds the invocation's promise, so requests that arrive while the
 * first one is being authorized wait for it instead of invoking again (only when caching is on).
 */
const cache = new Map<string, { expires: number; result: Promise<APIGatewayAuthorizerResult> }>();
let handlerPromise: Promise<AuthorizerHandler> | undefined;

function loadAuthorizer(): Promise<AuthorizerHandler> {
  const file = 'authorizer';
  handlerPromise ??= import(`../../functions/${file}.ts`).then((m: { handler: AuthorizerHandler }) => m.handler);
  return handlerPromise;
}

/** IAM-style match of a policy resource (with * wildcards) against the method ARN. */
function resourceMatches(pattern: string, arn: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
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
  const header = Object.entries(event.headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  if (!header) return { allowed: false, response: 'UNAUTHORIZED' };

  const request = authorizerEvent(event);
  const arn = request.methodArn;
  const started = Date.now();
  let entry = cache.get(header);
  if (!entry || entry.expires <= Date.now()) {
    entry = {
      expires: Date.now() + ttlSeconds * 1000,
      result: loadAuthorizer().then((handler) => invokeAuthorizer(handler, request)),
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
  if (effectFor(output, arn) === 'Deny') {
    const message = output.context?.message;
    return { allowed: false, response: 'ACCESS_DENIED', ...(typeof message === 'string' ? { message } : {}) };
  }
  // API Gateway hands context values to a REST proxy integration as strings.
  const context: Record<string, string> = { principalId: output.principalId, integrationLatency: String(Date.now() - started) };
  for (const [key, value] of Object.entries(output.context ?? {})) context[key] = String(value);
  return { allowed: true, context, ...(output.usageIdentifierKey ? { usageIdentifierKey: output.usageIdentifierKey } : {}) };
}
