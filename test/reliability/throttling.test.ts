/**
 * DynamoDB throttling, injected through SDK middleware (DynamoDB Local never throttles): the SDK retries with
 * backoff up to its 3 attempts, a request that succeeds within them answers normally, and one that stays
 * throttled answers 503 SERVICE_UNAVAILABLE with Retry-After. A create refused this way writes nothing and uses
 * up no id.
 */
import { ProvisionedThroughputExceededException, ThrottlingException } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authorizerDocumentClient, documentClient } from '../../lib/dynamo/client.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { contractViolations } from '../support/contract-answer.js';
import { testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { useGateway } from '../support/http.js';
import { captureLogs } from '../support/logs.js';

const { call } = useGateway();
// A document client shares its low-level client's middleware stack.
const clients = [documentClient(), authorizerDocumentClient()];
const json = { 'Content-Type': 'application/json' };
const table = () => categoryIntegrity(testDb, testTable('CATEGORIES_TABLE'));

/** Which commands are throttled, and for how many attempts of each send (Infinity: every attempt). */
const throttle = { commands: new Set<string>(), attempts: 0 };
/** What the SDK reported for each send of a throttled command: attempts made and total backoff. */
const sends: { command: string; attempts: number; totalRetryDelay: number; succeeded: boolean }[] = [];
/** Per send: its input, the same object for each of its attempts (a cached handler's context is shared by sends). */
const attemptsOf = new WeakMap<object, number>();

function throttlingError(command: string, attempt: number): Error {
  const $metadata = { httpStatusCode: 400, requestId: `injected-${attempt}`, attempts: attempt };
  // What DynamoDB sends: ProvisionedThroughputExceeded for a table's capacity, ThrottlingException for the
  // control plane and on-demand bursts. Both are throttling errors to the SDK's retry strategy.
  const error =
    command === 'TransactWriteItemsCommand'
      ? new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput', $metadata })
      : new ProvisionedThroughputExceededException({
          message: 'The level of configured provisioned throughput for the table was exceeded',
          $metadata,
        });
  return Object.assign(error, { $retryable: { throttling: true } });
}

const RetryMetadata = v.object({ attempts: v.optional(v.number()), totalRetryDelay: v.optional(v.number()) });

/** Lines the service logged: each refused request is logged once, with its request id, for the operator. */
let logs: ReturnType<typeof captureLogs> | undefined;

beforeAll(() => {
  logs = captureLogs();
  // Both clients: the operations' and the authorizer's (its key lookup is one of the throttled calls).
  for (const client of clients) {
    // Innermost, below the retry middleware: runs once per attempt, before anything goes on the wire.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        if (!throttle.commands.has(command)) return next(args);
        const attempt = (attemptsOf.get(args.input) ?? 0) + 1;
        attemptsOf.set(args.input, attempt);
        if (attempt <= throttle.attempts) throw throttlingError(command, attempt);
        return next(args);
      },
      { step: 'deserialize', priority: 'high', name: 'injectThrottling' },
    );
    // Outermost: once per send, reads the SDK's own account of attempts and backoff.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        if (!throttle.commands.has(command)) return next(args);
        try {
          const result = await next(args);
          const { attempts = 0, totalRetryDelay = 0 } = result.output.$metadata;
          sends.push({ command, attempts, totalRetryDelay, succeeded: true });
          return result;
        } catch (error) {
          // An SDK error carries the same account of attempts as an output.
          const metadata = error instanceof Error && '$metadata' in error ? error.$metadata : {};
          const { attempts = 0, totalRetryDelay = 0 } = v.parse(RetryMetadata, metadata);
          sends.push({ command, attempts, totalRetryDelay, succeeded: false });
          throw error;
        }
      },
      { step: 'initialize', name: 'recordRetries' },
    );
  }
});
afterEach(() => {
  throttle.commands.clear();
  throttle.attempts = 0;
  sends.length = 0;
});
afterAll(() => {
  logs?.stop();
  for (const client of clients) {
    client.middlewareStack.remove('injectThrottling');
    client.middlewareStack.remove('recordRetries');
  }
});

describe('throttling that clears within the SDK attempts', () => {
  it('a read throttled twice is retried with backoff and answers 200', async () => {
    throttle.commands.add('QueryCommand');
    throttle.attempts = 2;
    const answer = await call('/categories');
    expect(answer.status).toBe(200);
    expect(sends).toEqual([{ command: 'QueryCommand', attempts: 3, totalRetryDelay: expect.any(Number), succeeded: true }]);
    expect(sends[0]?.totalRetryDelay).toBeGreaterThan(0); // the retries waited: backoff, not a hot loop
  });

  it('a create whose transaction is throttled twice is retried and answers 201', async () => {
    throttle.commands.add('TransactWriteItemsCommand');
    throttle.attempts = 2;
    const answer = await call('/categories', { method: 'POST', headers: json, body: '{"name":"Persistent"}' });
    expect(answer.status).toBe(201);
    expect(sends).toEqual([{ command: 'TransactWriteItemsCommand', attempts: 3, totalRetryDelay: expect.any(Number), succeeded: true }]);
    expect((await table()).problems).toEqual([]);
  });
});

describe('throttling that outlasts the SDK attempts: 503 SERVICE_UNAVAILABLE with Retry-After', () => {
  it.each([
    ['the authorizer key lookup (GetItem)', 'GetItemCommand', '/categories', {}],
    ['the rate-limit counter (UpdateItem)', 'UpdateItemCommand', '/categories', {}],
    ['the category list (Query)', 'QueryCommand', '/categories', {}],
    [
      'the create transaction (TransactWriteItems)',
      'TransactWriteItemsCommand',
      '/categories',
      { method: 'POST', headers: json, body: '{"name":"Never"}' },
    ],
  ])('%s', async (_, command, path, init) => {
    throttle.commands.add(command);
    throttle.attempts = Number.POSITIVE_INFINITY;
    const answer = await call(path, init);
    expect(contractViolations(answer, new Set([503]))).toEqual([]);
    expect(answer.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(answer.text).not.toMatch(/throughput|Throttl|Rate of requests|injected/);
    expect(sends.length).toBeGreaterThan(0);
    for (const send of sends) expect(send).toMatchObject({ command, attempts: 3, succeeded: false });
    expect(logs?.lines.at(-1)).toContain(command === 'GetItemCommand' ? 'authorizer failed' : 'dependency unavailable');
  });
});

describe('a create refused by throttling', () => {
  it('writes nothing and uses up no id: the next create gets the next id', async () => {
    const before = await table();
    throttle.commands.add('TransactWriteItemsCommand');
    throttle.attempts = Number.POSITIVE_INFINITY;
    const refused = await call('/categories', { method: 'POST', headers: json, body: '{"name":"Throttled"}' });
    expect(refused.status).toBe(503);

    const after = await table();
    expect(after.problems).toEqual([]);
    expect(after.categories).toEqual(before.categories);
    expect(after.lastId).toBe(before.lastId);
    expect(after.reservations).toBe(before.reservations);

    throttle.commands.clear();
    const retried = await call('/categories', { method: 'POST', headers: json, body: '{"name":"Throttled"}' });
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual({ id: before.lastId + 1, name: 'Throttled' });
    expect((await table()).problems).toEqual([]);
  });
});
