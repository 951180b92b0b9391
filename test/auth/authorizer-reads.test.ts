/**
 * What the authorizer's decisions cost in DynamoDB calls, counted on an authorizer instance of each test's own
 * (newInstance: the handler imported afresh, with its own client), so nothing else is ever counted as its reads.
 * Every handler this file calls is such an instance: the module registry is reset for each.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorizerEvent, lambdaContext, proxyEvent } from '../../infra/local/events.js';
import { generateKey } from '../../lib/auth/keys.js';
import { makeCustomer, testAuthStore, withBrokenChecksum } from '../support/customers.js';
import { newInstance } from '../support/dynamo-calls.js';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/categories';

/** A new authorizer instance reading `clock`; `authorize` runs it, `authorizerCalls` records its DynamoDB calls. */
async function countedAuthorizer(clock?: () => number) {
  const instance = await newInstance(() => import('../../functions/authorizer.js'), clock);
  const authorize = async (authorization: string): Promise<APIGatewayAuthorizerResult> => {
    const event = authorizerEvent(proxyEvent({ headers: { Authorization: authorization } }));
    return instance.handler({ ...event, methodArn: METHOD_ARN }, lambdaContext('authorizer', 'test'));
  };
  return { authorize, authorizerCalls: instance.authorizerCalls };
}

const effect = (result: APIGatewayAuthorizerResult) => result.policyDocument.Statement[0]?.Effect;

describe('authorizer: expired keys', () => {
  it('refuses a key from its expiry on, saying when it expired, without reading the customer', async () => {
    const { customerId } = await makeCustomer('pro');
    const expiresAt = new Date(Date.now() + 60_000);
    const { apiKey } = await testAuthStore.createKey(customerId, 'production', undefined, { expiresAt });
    let at = Date.now();
    const authorizer = await countedAuthorizer(() => at);
    expect(effect(await authorizer.authorize(`Bearer ${apiKey}`))).toBe('Allow');
    at = expiresAt.getTime();
    authorizer.authorizerCalls.take();
    const result = await authorizer.authorize(`Bearer ${apiKey}`);
    expect(effect(result)).toBe('Deny');
    expect(result.context).toEqual({ reason: 'expired', message: expect.stringContaining(`expired at ${expiresAt.toISOString()}`) });
    expect(authorizer.authorizerCalls.take().map((call) => call.command)).toEqual(['GetItemCommand']);
  });
});

describe('authorizer: no DynamoDB read for what the key itself gives away', () => {
  it('refuses a bad scheme, text after the key, a malformed key, a bad checksum and the other environment with zero calls', async () => {
    const authorizer = await countedAuthorizer();
    for (const header of [
      'Basic x',
      `Bearer ${generateKey('production')} extra`,
      'Bearer nope',
      `Bearer ${withBrokenChecksum(generateKey('production'))}`,
      `Bearer ${generateKey('staging')}`,
    ]) {
      expect(effect(await authorizer.authorize(header))).toBe('Deny');
    }
    expect(authorizer.authorizerCalls.take()).toEqual([]);
    await authorizer.authorize(`Bearer ${generateKey('production')}`);
    expect(authorizer.authorizerCalls.take()).toHaveLength(1); // an unknown key costs its one GetItem
  });
});
