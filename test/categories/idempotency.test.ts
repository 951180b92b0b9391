/**
 * Idempotency-Key through createCategory's real Middy chain against DynamoDB Local, for what the local gateway
 * cannot show: requests that truly run at once (the gateway runs one create at a time, as one Lambda instance
 * would), a repeated header, a failure inside the operation, and the claim's tie to the function's time left.
 * The rules themselves are tested over HTTP in test/http/idempotency.http.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { lambdaContext } from '../../infra/local/events.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { errorBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { type Answer, invoke, proxyEvent, TEST_AUTHORIZER } from '../support/events.js';

const table = () => categoryIntegrity(testDb, testTable('CATEGORIES_TABLE'));
const unique = (what: string) => `${what} ${randomUUID().slice(0, 8)}`;
const post = (body: unknown, keys: string[]) =>
  proxyEvent({
    method: 'POST',
    path: '/categories',
    body: JSON.stringify(body),
    headers: [['Content-Type', 'application/json'], ...keys.map((key): [string, string] => ['Idempotency-Key', key])],
  });
const recordOf = async (key: string) =>
  (
    await testDb.send(
      new GetCommand({
        TableName: process.env.IDEMPOTENCY_TABLE,
        Key: {
          id: `createCategory#${createHash('sha256')
            .update(JSON.stringify([TEST_AUTHORIZER.customerId, key]))
            .digest('base64')}`,
        },
        ConsistentRead: true,
      }),
    )
  ).Item;

/**
 * Commands on the idempotency or categories table that fail once with the error given, before they reach DynamoDB
 * (and outside the SDK's retries). The counters table is never failed, so the request is always admitted.
 */
const failOnce = new Map<string, Error>();
beforeAll(() => {
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const error = failOnce.get(command);
      if (!error || ('TableName' in args.input && args.input.TableName === process.env.COUNTERS_TABLE)) return next(args);
      failOnce.delete(command);
      throw error;
    },
    { step: 'initialize', name: 'injectFailure' },
  );
});
afterEach(() => failOnce.clear());

describe('createCategory with an Idempotency-Key, requests running at once', () => {
  it('20 concurrent invocations with one key and body: one creates, the others replay it or get 409 IN_PROGRESS', async () => {
    const key = randomUUID();
    const body = { name: unique('Race') };
    const before = await table();
    const answers = await Promise.all(Array.from({ length: 20 }, () => invoke(create, post(body, [key]))));
    const byKind = (kind: (a: Answer) => boolean) => answers.filter(kind);
    const created = byKind((a) => a.status === 201 && !a.headers.has('Idempotent-Replayed'));
    const replays = byKind((a) => a.status === 201 && a.headers.get('Idempotent-Replayed') === 'true');
    const inProgress = byKind((a) => a.status === 409 && errorBody(a).code === 'IDEMPOTENCY_IN_PROGRESS');
    expect(created).toHaveLength(1);
    expect(replays.length + inProgress.length).toBe(19);
    for (const answer of inProgress) expect(answer.headers.get('Retry-After')).toBe('1');
    for (const answer of replays) expect(answer.body).toEqual(created[0]?.body);
    const after = await table();
    expect(after.categories.filter((c) => c.name === body.name)).toHaveLength(1);
    expect(after.lastId).toBe(before.lastId + 1);
    expect(after.problems).toEqual([]);
  });
});

describe('createCategory with an Idempotency-Key, the header', () => {
  it('sent twice is 400 VALIDATION_FAILED naming it, even with equal values', async () => {
    for (const keys of [
      ['a', 'b'],
      ['same', 'same'],
    ]) {
      const answer = await invoke(create, post({ name: unique('Twice') }, keys));
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(/^"Idempotency-Key" was sent 2 times/),
      });
    }
  });
});

describe('createCategory with an Idempotency-Key, failures', () => {
  it('a 5xx is not remembered: the claim is released and the retry runs', async () => {
    const key = randomUUID();
    const body = { name: unique('Failed once') };
    failOnce.set('TransactWriteItemsCommand', new Error('injected failure'));
    const failed = await invoke(create, post(body, [key]));
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(await recordOf(key)).toBeUndefined();
    const retried = await invoke(create, post(body, [key]));
    expect(retried.status).toBe(201);
    expect(retried.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('the idempotency table unreachable is 503 with Retry-After, nothing is created, and the retry runs', async () => {
    const key = randomUUID();
    const body = { name: unique('No claim') };
    const before = await table();
    failOnce.set('PutItemCommand', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }));
    const answer = await invoke(create, post(body, [key]));
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(answer.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect((await table()).lastId).toBe(before.lastId);
    expect((await invoke(create, post(body, [key]))).status).toBe(201);
  });

  it('an answer that cannot be stored is a 503, and the key stays claimed until the claim lapses', async () => {
    const key = randomUUID();
    const body = { name: unique('Not stored') };
    failOnce.set('UpdateItemCommand', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const answer = await invoke(create, post(body, [key]));
    expect(answer.status).toBe(503);
    // The category exists; a retry within the claim is told to wait, not given a second category.
    expect((await table()).categories.filter((c) => c.name === body.name)).toHaveLength(1);
    const retry = await invoke(create, post(body, [key]));
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
  });
});

describe('createCategory with an Idempotency-Key, the claim', () => {
  it('lapses when the invocation that made it would be cut off: now plus the time Lambda says is left', async () => {
    const key = randomUUID();
    const event = post({ name: unique('Claimed') }, [key]);
    const timeoutMs = FUNCTION_SETTINGS.operationTimeoutSeconds * 1000;
    const started = Date.now();
    const result = await create(event, lambdaContext('create-category', event.requestContext.requestId, timeoutMs));
    expect(result?.statusCode).toBe(201);
    const record = await recordOf(key);
    expect(record).toMatchObject({ status: 'COMPLETED' });
    expect(record?.in_progress_expiration).toBeGreaterThanOrEqual(started + timeoutMs - 1_000);
    expect(record?.in_progress_expiration).toBeLessThanOrEqual(Date.now() + timeoutMs);
    // Remembered 24 hours.
    expect(record?.expiration).toBeGreaterThan(started / 1000 + 86_400 - 60);
  });
});
