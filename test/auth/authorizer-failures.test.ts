/**
 * An authorizer that fails instead of deciding, as API Gateway answers it (REST API, REQUEST authorizer) and as the
 * local gateway models it: "Unauthorized" is a 401; any other error, a timeout or an output without a usable policy
 * is AUTHORIZER_CONFIGURATION_ERROR; and every failure type that can occur answers 503 SERVICE_UNAVAILABLE with
 * Retry-After, not API Gateway's default 500. The AWS documentation behind this is cited in infra/local/authorizer.ts.
 */
import { assert, describe, expect, it } from 'vitest';
import {
  AUTHORIZER_TIMEOUT_MS,
  type AuthorizerHandler,
  AuthorizerInvocationError,
  invokeAuthorizer,
} from '../../infra/local/authorizer.js';
import { authorizerEvent, proxyEvent } from '../../infra/local/events.js';
import { GATEWAY_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';

const EVENT = authorizerEvent(proxyEvent({ headers: { Authorization: 'Bearer x' } }));

const DENY = {
  principalId: 'anonymous',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: '*' }] },
  context: { message: 'no', reason: 'unknown' },
};

async function failureOf(handler: AuthorizerHandler, timeoutMs?: number): Promise<AuthorizerInvocationError> {
  const error = await invokeAuthorizer(handler, EVENT, timeoutMs).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instanceOf(error, AuthorizerInvocationError);
  return error;
}

describe('gateway responses for a failing authorizer', () => {
  it.each(['AUTHORIZER_CONFIGURATION_ERROR', 'AUTHORIZER_FAILURE'] as const)('%s is 503 SERVICE_UNAVAILABLE with Retry-After', (type) => {
    const spec = GATEWAY_RESPONSES[type];
    expect(spec).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(Number(spec.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
  });

  it('an authorizer that throws "Unauthorized" stays a 401', () => {
    expect(GATEWAY_RESPONSES.UNAUTHORIZED).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('the local gateway invokes the authorizer as API Gateway does', () => {
  it('an error (DynamoDB unreachable) → AUTHORIZER_CONFIGURATION_ERROR', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const failure = await failureOf(async () => {
      throw cause;
    });
    expect(failure).toMatchObject({ response: 'AUTHORIZER_CONFIGURATION_ERROR', reason: 'error', cause });
  });

  it('"Unauthorized" → UNAUTHORIZED', async () => {
    const failure = await failureOf(async () => {
      throw new Error('Unauthorized');
    });
    expect(failure).toMatchObject({ response: 'UNAUTHORIZED', reason: 'unauthorized' });
  });

  it('running past its Lambda timeout → AUTHORIZER_CONFIGURATION_ERROR', async () => {
    expect(AUTHORIZER_TIMEOUT_MS).toBe(FUNCTION_SETTINGS.authorizerTimeoutSeconds * 1000);
    // The deployed 10 s, scaled down: an authorizer that never finishes.
    const failure = await failureOf(() => new Promise(() => undefined), 50);
    expect(failure).toMatchObject({ response: 'AUTHORIZER_CONFIGURATION_ERROR', reason: 'timeout' });
  });

  it.each([
    ['nothing', undefined],
    ['no principalId', { policyDocument: DENY.policyDocument }],
    ['no policy document', { principalId: 'p' }],
    ['a policy document without a list of statements', { principalId: 'p', policyDocument: { Version: '2012-10-17' } }],
    ['an object as a context value', { ...DENY, context: { limits: { perMinute: 1 } } }],
  ])('an output with %s → AUTHORIZER_CONFIGURATION_ERROR', async (_, output) => {
    const failure = await failureOf(async () => output);
    expect(failure).toMatchObject({ response: 'AUTHORIZER_CONFIGURATION_ERROR', reason: 'invalid-output' });
  });

  it('a valid policy is handed on, Deny included', async () => {
    await expect(invokeAuthorizer(async () => DENY, EVENT)).resolves.toEqual(DENY);
  });
});
