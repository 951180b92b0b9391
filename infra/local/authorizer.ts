/**
 * The local stand-in for API Gateway's REQUEST authorizer integration: identity source (the Authorization
 * header; missing means 401 without invoking), the result cache (AUTHORIZER_CACHE_TTL seconds, default 0
 * locally), policy evaluation against the method ARN, and the context handed on to the operation.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { localConfig } from '../../lib/config.js';
import type { GatewayResponseType } from '../../lib/http/gateway-responses.js';
import { log } from '../../lib/log.js';
import { authorizerEvent } from './events.js';

type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent, context: unknown) => Promise<APIGatewayAuthorizerResult>;

export type AuthOutcome =
  | { allowed: true; context: NonNullable<APIGatewayProxyEvent['requestContext']['authorizer']> }
  | { allowed: false; response: GatewayResponseType; message?: string };

const ttlSeconds = localConfig().AUTHORIZER_CACHE_TTL;
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
    entry = { expires: Date.now() + ttlSeconds * 1000, result: loadAuthorizer().then((handler) => handler(request, {})) };
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
    if (error instanceof Error && error.message === 'Unauthorized') return { allowed: false, response: 'UNAUTHORIZED' };
    log.error('authorizer failed', { requestId: event.requestContext.requestId, error });
    return { allowed: false, response: 'AUTHORIZER_FAILURE' };
  }
  if (effectFor(output, arn) === 'Deny') {
    const message = output.context?.message;
    return { allowed: false, response: 'ACCESS_DENIED', ...(typeof message === 'string' ? { message } : {}) };
  }
  // API Gateway hands context values to a REST proxy integration as strings.
  const context: Record<string, string> = { principalId: output.principalId, integrationLatency: String(Date.now() - started) };
  for (const [key, value] of Object.entries(output.context ?? {})) context[key] = String(value);
  return { allowed: true, context };
}
