/**
 * The authorizer against DynamoDB Local, for every refusal reason, and the local gateway running it the way API
 * Gateway does: no header means 401 without invoking it, a Deny becomes the 401 Error body with its reason. The
 * DynamoDB calls a decision costs are counted in authorizer-reads.test.ts.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/authorizer.js';
import { authorizerEvent, lambdaContext, proxyEvent } from '../../infra/local/events.js';
import { generateKey } from '../../lib/auth/keys.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { addKey, makeCustomer, type TestCustomer, testAuthStore, withBrokenChecksum } from '../support/customers.js';
import { useGateway } from '../support/http.js';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/categories';

async function authorize(authorization: string | undefined): Promise<APIGatewayAuthorizerResult> {
  const event = authorizerEvent(proxyEvent({ headers: authorization === undefined ? {} : { Authorization: authorization } }));
  return handler({ ...event, methodArn: METHOD_ARN }, lambdaContext('authorizer', 'test'));
}

const effect = (result: APIGatewayAuthorizerResult) => result.policyDocument.Statement[0]?.Effect;

let customer: TestCustomer;
beforeAll(async () => {
  customer = await makeCustomer('pro');
});

describe('authorizer: Allow', () => {
  it('allows every method of the stage and passes customer, key id, plan and limits', async () => {
    const result = await authorize(customer.authorization);
    expect(effect(result)).toBe('Allow');
    expect(result.policyDocument.Statement[0]).toMatchObject({ Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/*/*' });
    expect(result.principalId).toBe(customer.customerId);
    expect(result.context).toEqual({ customerId: customer.customerId, keyId: customer.keyId, plan: 'pro', perMinute: 300, perDay: 10_000 });
  });

  it('takes the scheme in any case', async () => {
    expect(effect(await authorize(`bearer ${customer.apiKey}`))).toBe('Allow');
    expect(effect(await authorize(`BEARER ${customer.apiKey}`))).toBe('Allow');
  });

  it('takes one or more spaces after Bearer (RFC 6750: "Bearer" 1*SP b64token), and white space around the value', async () => {
    expect(effect(await authorize(`Bearer   ${customer.apiKey}`))).toBe('Allow');
    expect(effect(await authorize(` \tBearer ${customer.apiKey}\t `))).toBe('Allow');
  });

  it('passes Enterprise customers their own numbers', async () => {
    const enterprise = await makeCustomer('enterprise', { perMinute: 5_000, perDay: 2_000_000 });
    expect((await authorize(enterprise.authorization)).context).toMatchObject({ plan: 'enterprise', perMinute: 5_000, perDay: 2_000_000 });
  });
});

describe('authorizer: Deny, with a reason the caller can act on', () => {
  it.each([
    ['no header', undefined, 'missing', /missing/],
    ['an empty header', '', 'missing', /missing/],
    ['the Basic scheme', 'Basic dXNlcjpwYXNz', 'scheme', /Bearer scheme/],
    ['a bare key without scheme', 'pet_live_x', 'scheme', /Bearer scheme/],
    ['Bearer without a key', 'Bearer', 'malformed', /malformed/],
    ['a key with more text after it', `Bearer ${generateKey('production')} extra`, 'extra-text', /exactly one API key after Bearer/],
    ['two values in one header', 'Bearer k, Bearer k', 'extra-text', /exactly one API key after Bearer/],
    ['another scheme with two words', 'Basic a b', 'scheme', /Bearer scheme/],
    ['a tab after Bearer', `Bearer\t${generateKey('production')}`, 'separator', /spaces \(U\+0020\) only/],
    ['a no-break space after Bearer', `Bearer\u00a0${generateKey('production')}`, 'separator', /spaces \(U\+0020\) only/],
    ['an ideographic space after Bearer', `Bearer\u3000${generateKey('production')}`, 'separator', /spaces \(U\+0020\) only/],
    ['a space and a tab after Bearer', `Bearer \t${generateKey('production')}`, 'extra-text', /exactly one API key/],
    ['a no-break space after the key', `Bearer ${generateKey('production')}\u00a0`, 'extra-text', /exactly one API key/],
    ['Bearer run into the key', `Bearer${generateKey('production')}`, 'scheme', /Bearer scheme/],
    ['a malformed key', 'Bearer not-a-key', 'malformed', /malformed/],
    ['a key with a broken checksum', `Bearer ${withBrokenChecksum(generateKey('production'))}`, 'checksum', /checksum/],
    ['a staging key on production', `Bearer ${generateKey('staging')}`, 'other-environment', /other environment/],
    ['a well-formed key nobody issued', `Bearer ${generateKey('production')}`, 'unknown', /not recognised/],
  ])('for %s', async (_, header, reason, message) => {
    const result = await authorize(header);
    expect(effect(result)).toBe('Deny');
    expect(result.context).toMatchObject({ reason, message: expect.stringMatching(message) });
  });

  it('for a revoked key', async () => {
    const key = await addKey(customer.customerId);
    expect(effect(await authorize(key.authorization))).toBe('Allow');
    await testAuthStore.revokeKey(key.keyId);
    const result = await authorize(key.authorization);
    expect(effect(result)).toBe('Deny');
    expect(result.context).toMatchObject({ reason: 'revoked' });
  });
});

describe('authorizer: expired keys and suspended accounts', () => {
  it('refuses every key of a suspended customer, and allows them again once it is resumed', async () => {
    const suspended = await makeCustomer('pro');
    const other = await addKey(suspended.customerId);
    const seen = await testAuthStore.getCustomer(suspended.customerId);
    if (!seen) throw new Error('no customer');
    const after = await testAuthStore.suspend(seen, 'fraud review');
    for (const authorization of [suspended.authorization, other.authorization]) {
      const result = await authorize(authorization);
      expect(effect(result)).toBe('Deny');
      expect(result.context).toEqual({ reason: 'suspended', message: expect.stringMatching(/account .* is suspended/) });
    }
    await testAuthStore.resume(after);
    expect(effect(await authorize(other.authorization))).toBe('Allow');
  });
});

describe('all keys of a customer share one pair of windows', () => {
  const { call } = useGateway();

  it('a Free customer with two keys gets 60 admitted in the minute between them, then 429 on both', async () => {
    // One fixed minute (in the future, as the counters' TTL wants), so no window rolls over during the test.
    const minute = Date.UTC(2036, 0, 1, 12, 0, 30);
    setClock(() => minute);
    const owner = await makeCustomer('free');
    const second = await addKey(owner.customerId);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await call('/store/orders', { key: i % 2 ? second.apiKey : owner.apiKey })).status);
    expect(statuses.every((s) => s === 501)).toBe(true);
    const [a, b] = [await call('/store/orders', { key: owner.apiKey }), await call('/store/orders', { key: second.apiKey })];
    resetClock();
    expect(a.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(b.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(b.headers.get('retry-after')).toBe('30');
  });
});

describe('the local gateway runs the authorizer like API Gateway', () => {
  const { call } = useGateway();

  it('401 UNAUTHORIZED without invoking it when the header is missing, with the X-RateLimit headers', async () => {
    const answer = await call('/categories', { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(/Authorization/), status: 401 });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('0');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(answer.headers.get('x-ratelimit-reset')).toBe('0');
    expect(answer.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([
    ['Basic dXNlcjpwYXNz', /Bearer scheme/],
    ['Bearer nonsense', /malformed/],
    ['bearer k, Bearer k', /exactly one API key after Bearer/],
    [`Bearer ${generateKey('staging')}`, /other environment/],
    [`Bearer ${generateKey('production')}`, /not recognised/],
  ])('a Deny for %s becomes 401 with the reason', async (authorization, message) => {
    const answer = await call('/categories', { headers: { Authorization: authorization } });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(message), status: 401 });
    expect(answer.headers.get('content-type')).toBe('application/json');
  });

  it('refuses every operation without a key, and a refused request writes nothing', async () => {
    for (const path of ['/categories', '/rate-limit', '/pets/1', '/store/orders']) {
      expect((await call(path, { key: null })).status).toBe(401);
    }
    const before = (await call('/categories')).body;
    const post = await call('/categories', {
      method: 'POST',
      key: generateKey('production'),
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Sneaky"}',
    });
    expect(post.status).toBe(401);
    expect((await call('/categories')).body).toEqual(before);
  });

  it('a valid key reaches the operation, with its customer in the authorizer context', async () => {
    const answer = await call('/rate-limit', { key: customer.apiKey });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ customerId: customer.customerId, plan: 'pro' });
  });
});
