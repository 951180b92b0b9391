/**
 * The local gateway's authorizer cache with a TTL (AUTHORIZER_CACHE_TTL): one invocation per Authorization value, and
 * the cached policy still judged against each request's method ARN, as API Gateway judges a cached policy.
 */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { methodArn, proxyEvent } from '../../infra/local/events.js';

const invocations = vi.hoisted(() => {
  process.env.AUTHORIZER_CACHE_TTL = '60';
  return { count: 0 };
});

// A policy no key of ours gets (ours allow every method): GET /categories allowed, POST denied, nothing else named.
vi.mock('../../functions/authorizer.ts', () => ({
  handler: async (): Promise<APIGatewayAuthorizerResult> => {
    invocations.count += 1;
    return {
      principalId: 'cache-test',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: 'execute-api:Invoke', Resource: methodArn('GET', '/categories') },
          { Effect: 'Deny', Action: 'execute-api:Invoke', Resource: methodArn('POST', '/categories') },
        ],
      },
      context: { customerId: 'cache-test' },
    };
  },
}));

const { authorize } = await import('../../infra/local/authorizer.js');

const request = (method: string, resource: string) =>
  authorize(proxyEvent({ method, path: resource, resource, headers: { Authorization: 'Bearer pet_live_cachetest' } }));

describe('a cached policy', () => {
  it('is judged per method ARN, in any order, from one invocation', async () => {
    const outcomes = [];
    for (const [method, resource] of [
      ['GET', '/categories'],
      ['POST', '/categories'],
      ['GET', '/categories'],
      ['GET', '/rate-limit'],
      ['POST', '/categories'],
    ] as const)
      outcomes.push((await request(method, resource)).allowed);
    expect(outcomes).toEqual([true, false, true, false, false]);
    expect(invocations.count).toBe(1);
  });
});
