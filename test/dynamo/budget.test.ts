/**
 * The DynamoDB time budget (lib/dynamo/budget.ts) against every function's Lambda timeout, and the retry strategy
 * that keeps the SDK inside it: backoff capped, a server's Retry-After hint not followed, no attempt beyond the
 * budget's.
 */
import { HttpRequest } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { assert, describe, expect, it } from 'vitest';
import { budgetRetryStrategy } from '../../lib/dynamo/backoff.js';
import {
  allowedWaitMs,
  BUDGET_SHARE_OF_TIMEOUT,
  DYNAMO_BUDGETS,
  type FunctionKind,
  LAMBDA_TIMEOUT_MS,
  LOCAL_TIMEOUTS,
  maxTotalBackoffMs,
  worstCaseWaitMs,
} from '../../lib/dynamo/budget.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { ROUTES } from '../../lib/routes.js';

/** Every Lambda function the stacks deploy: one per route, and the authorizer. */
/** Every kind of function that has a budget. */
const KINDS = Object.keys(DYNAMO_BUDGETS).filter((key): key is FunctionKind => key in DYNAMO_BUDGETS);
const FUNCTIONS: { name: string; kind: FunctionKind }[] = [
  ...ROUTES.map((route) => ({ name: route.operationId, kind: 'operation' as const })),
  { name: 'authorizer', kind: 'authorizer' },
];

describe('the DynamoDB budget fits every function', () => {
  it('reads its Lambda timeouts from the one definition the stacks deploy', () => {
    expect(LAMBDA_TIMEOUT_MS).toEqual({
      operation: FUNCTION_SETTINGS.operationTimeoutSeconds * 1000,
      authorizer: FUNCTION_SETTINGS.authorizerTimeoutSeconds * 1000,
    });
  });

  it.each(FUNCTIONS)('$name: attempts × (connection + request timeout) + all backoff ≤ 70 % of its Lambda timeout', ({ kind }) => {
    const budget = DYNAMO_BUDGETS[kind];
    const worst = budget.attempts * (budget.connectionTimeoutMs + budget.requestTimeoutMs) + (budget.attempts - 1) * budget.maxBackoffMs;
    expect(worstCaseWaitMs(budget)).toBe(worst);
    expect(allowedWaitMs(kind)).toBe(LAMBDA_TIMEOUT_MS[kind] * BUDGET_SHARE_OF_TIMEOUT);
    expect(worst).toBeLessThanOrEqual(LAMBDA_TIMEOUT_MS[kind] * 0.7);
  });

  it('retries at least once, so one lost packet is not an outage', () => {
    for (const budget of Object.values(DYNAMO_BUDGETS)) expect(budget.attempts).toBeGreaterThanOrEqual(2);
  });

  it('prints the numbers', () => {
    console.table(
      KINDS.map((kind) => ({
        kind,
        ...DYNAMO_BUDGETS[kind],
        maxTotalBackoffMs: maxTotalBackoffMs(DYNAMO_BUDGETS[kind]),
        worstCaseMs: worstCaseWaitMs(DYNAMO_BUDGETS[kind]),
        allowedMs: allowedWaitMs(kind),
        lambdaTimeoutMs: LAMBDA_TIMEOUT_MS[kind],
      })),
    );
  });
});

describe('clients are built from the budget', () => {
  async function settingsOf(client: ReturnType<typeof createDynamoClient>) {
    const handler = client.config.requestHandler;
    assert.instanceOf(handler, NodeHttpHandler);
    // The handler resolves its settings on first use: a request aborted before it starts sends nothing.
    await handler
      .handle(new HttpRequest({ protocol: 'http:', hostname: '127.0.0.1' }), { abortSignal: AbortSignal.abort() })
      .catch(() => undefined);
    const { connectionTimeout, requestTimeout, throwOnRequestTimeout } = await handler.httpHandlerConfigs();
    return { attempts: await client.config.maxAttempts(), connectionTimeout, requestTimeout, throwOnRequestTimeout };
  }

  it.each(KINDS)('deployed (no endpoint), the %s budget exactly', async (kind) => {
    const budget = DYNAMO_BUDGETS[kind];
    const client = createDynamoClient(undefined, budget);
    expect(await settingsOf(client)).toEqual({
      attempts: budget.attempts,
      connectionTimeout: budget.connectionTimeoutMs,
      requestTimeout: budget.requestTimeoutMs,
      throwOnRequestTimeout: true,
    });
    client.destroy();
  });

  it("against DynamoDB Local (an endpoint), the same attempts with DynamoDB Local's longer timeouts", async () => {
    const client = createDynamoClient('http://127.0.0.1:1', DYNAMO_BUDGETS.authorizer);
    expect(await settingsOf(client)).toMatchObject({
      attempts: DYNAMO_BUDGETS.authorizer.attempts,
      connectionTimeout: LOCAL_TIMEOUTS.connectionTimeoutMs,
      requestTimeout: LOCAL_TIMEOUTS.requestTimeoutMs,
    });
    client.destroy();
  });
});

describe('the retry strategy keeps the SDK inside the budget', () => {
  const budget = { attempts: 3, connectionTimeoutMs: 100, requestTimeoutMs: 100, maxBackoffMs: 20 };

  it('waits at most maxBackoffMs before a retry after throttling, even when told Retry-After: 10 s', async () => {
    const strategy = budgetRetryStrategy(budget);
    const token = await strategy.acquireInitialRetryToken('');
    const started = performance.now();
    // Unbounded, the SDK would wait a random time below 1 s (its throttling base), and for the hint up to 5 s more.
    const retry = await strategy.refreshRetryTokenForRetry(token, {
      errorType: 'THROTTLING',
      retryAfterHint: new Date(Date.now() + 10_000),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(retry.getRetryCount()).toBe(1);
  });

  it('gives no retry beyond the budget’s attempts, and none for a client error', async () => {
    const strategy = budgetRetryStrategy(budget);
    let token = await strategy.acquireInitialRetryToken('');
    for (let retry = 1; retry < budget.attempts; retry++)
      token = await strategy.refreshRetryTokenForRetry(token, { errorType: 'TRANSIENT' });
    await expect(strategy.refreshRetryTokenForRetry(token, { errorType: 'TRANSIENT' })).rejects.toThrow();
    const fresh = await strategy.acquireInitialRetryToken('');
    await expect(strategy.refreshRetryTokenForRetry(fresh, { errorType: 'CLIENT_ERROR' })).rejects.toThrow();
  });
});
