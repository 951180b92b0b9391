/**
 * Idempotency-Key on POST /v1/categories through the local gateway, rule by rule (docs/api.md, "Safe retries: Idempotency-Key"): a
 * replay gets the original status and body with Idempotent-Replayed, writes nothing and uses no id; another body is
 * 422; a key still in use is 409 with Retry-After; keys are per customer; a malformed key is 400 naming the header;
 * no header is exactly today's behaviour; a replay counts against the plan; after its 24 hours a key is new again.
 * Every answer is also held to openapi.json by `call`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createCategory } from '../../lib/routes.js';
import { errorBody, successBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { makeCustomer, testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { type Answer, useGateway } from '../support/http.js';
import { clearOfMinuteEnd } from '../support/sleep.js';

const { call, customer } = useGateway();
const IDEMPOTENCY_TABLE = testTable('IDEMPOTENCY_TABLE');
const table = () => categoryIntegrity(testDb, testTable('CATEGORIES_TABLE'));

const post = (body: unknown, key?: string, apiKey?: string) =>
  call('/categories', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    key: apiKey,
  });
const unique = (what: string) => `${what} ${randomUUID().slice(0, 8)}`;

/**
 * The record Powertools keeps for a key: `createCategory#` and the SHA-256 (base64) of the JSON of
 * [customerId, key], the selection of lib/idempotency/runner.ts. Tests read it to move its expiry.
 */
const recordId = (customerId: string, key: string) =>
  `createCategory#${createHash('sha256')
    .update(JSON.stringify([customerId, key]))
    .digest('base64')}`;
const record = async (customerId: string, key: string) =>
  (await testDb.send(new GetCommand({ TableName: IDEMPOTENCY_TABLE, Key: { id: recordId(customerId, key) }, ConsistentRead: true }))).Item;

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ code, message: expect.any(String), status });
}

describe('POST /v1/categories without Idempotency-Key', () => {
  it('is exactly as before: every request runs, and nothing is written to the idempotency table', async () => {
    const before = (await testDb.send(new ScanCommand({ TableName: IDEMPOTENCY_TABLE, Select: 'COUNT', ConsistentRead: true }))).Count;
    const name = unique('Plain');
    const first = await post({ name });
    expect(first.status).toBe(201);
    expect(first.headers.has('idempotent-replayed')).toBe(false);
    expectError(await post({ name }), 409, 'CATEGORY_EXISTS');
    const after = (await testDb.send(new ScanCommand({ TableName: IDEMPOTENCY_TABLE, Select: 'COUNT', ConsistentRead: true }))).Count;
    expect(after).toBe(before);
  });
});

describe('the same key and the same body: a replay', () => {
  it('gets the original status and body with Idempotent-Replayed: true, writes nothing and uses no id', async () => {
    const key = randomUUID();
    const body = { name: unique('Replayed'), description: 'first' };
    const first = await post(body, key);
    expect(first.status).toBe(201);
    expect(first.headers.has('idempotent-replayed')).toBe(false);
    const stored = await table();

    for (let i = 0; i < 3; i++) {
      const again = await post(body, key);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      // This request's own id and rate-limit state, not the stored ones.
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(again.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    }
    const now = await table();
    expect(now.categories).toEqual(stored.categories);
    expect(now.lastId).toBe(stored.lastId);
    expect(now.problems).toEqual([]);
  });

  it('the same body means the same JSON value: white space and member order do not matter', async () => {
    const key = randomUUID();
    const name = unique('Spaced');
    const first = await post(`{"name":"${name}","description":"d"}`, key);
    const again = await post(`{ "description" : "d",\n  "name" : "${name}" }`, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('remembers the result of the operation when it is an error: 409 CATEGORY_EXISTS again, replayed', async () => {
    const name = unique('Taken');
    expect((await post({ name })).status).toBe(201);
    const key = randomUUID();
    const first = await post({ name }, key);
    expectError(first, 409, 'CATEGORY_EXISTS');
    const again = await post({ name }, key);
    expectError(again, 409, 'CATEGORY_EXISTS');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('does not remember a refusal before the operation ran: a bad body is 400, and the fixed body runs', async () => {
    const key = randomUUID();
    const name = unique('Fixed');
    expectError(await post({ name, colour: 'brown' }, key), 400, 'VALIDATION_FAILED');
    expectError(await post('{"name":', key), 400, 'MALFORMED_JSON');
    const fixed = await post({ name }, key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.has('idempotent-replayed')).toBe(false);
  });

  it('counts a replay against the plan like any request', async () => {
    const tight = await makeCustomer('enterprise', { perMinute: 2, perDay: 1000 });
    await clearOfMinuteEnd();
    const key = randomUUID();
    const body = { name: unique('Counted') };
    expect((await post(body, key, tight.apiKey)).status).toBe(201);
    const replay = await post(body, key, tight.apiKey);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-ratelimit-remaining')).toBe('0');
    expectError(await post(body, key, tight.apiKey), 429, 'RATE_LIMIT_EXCEEDED');
  });
});

describe('the same key with another body', () => {
  it('is 422 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
    const key = randomUUID();
    const name = unique('Original');
    expect((await post({ name }, key)).status).toBe(201);
    const stored = await table();
    const reused = await post({ name: unique('Other') }, key);
    expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(reused.headers.has('idempotent-replayed')).toBe(false);
    expectError(await post({ name, description: 'now with one' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await table()).lastId).toBe(stored.lastId);
  });
});

describe('the same key while the first request is still running', () => {
  /** What the first request's claim looks like while its function still runs (written as the library writes it). */
  const claim = (customerId: string, key: string, body: unknown, inProgressUntilMs: number) =>
    testDb.send(
      new PutCommand({
        TableName: IDEMPOTENCY_TABLE,
        Item: {
          id: recordId(customerId, key),
          status: 'INPROGRESS',
          expiration: Math.floor(Date.now() / 1000) + 86_400,
          in_progress_expiration: inProgressUntilMs,
          validation: createHash('sha256').update(JSON.stringify(body)).digest('base64'),
        },
      }),
    );

  it('is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After, and runs nothing', async () => {
    const key = randomUUID();
    const body = { name: unique('Running') };
    await claim(customer().customerId, key, body, Date.now() + 10_000);
    const stored = await table();
    const answer = await post(body, key);
    expectError(answer, 409, 'IDEMPOTENCY_IN_PROGRESS');
    expect(answer.headers.get('retry-after')).toBe('1');
    expect((await table()).lastId).toBe(stored.lastId);
  });

  it('once the first request’s time is up (its function was cut off), a retry runs', async () => {
    const key = randomUUID();
    const body = { name: unique('Died') };
    await claim(customer().customerId, key, body, Date.now() - 1);
    const answer = await post(body, key);
    expect(answer.status).toBe(201);
    expect(answer.headers.has('idempotent-replayed')).toBe(false);
  });

  it('20 concurrent POSTs with one key and one body create one category; the rest are replays or IN_PROGRESS', async () => {
    const key = randomUUID();
    const body = { name: unique('Concurrent') };
    const before = await table();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body, key)));
    const created = answers.filter((a) => a.status === 201 && !a.headers.has('idempotent-replayed'));
    const replays = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const inProgress = answers.filter((a) => a.status === 409 && errorBody(a).code === 'IDEMPOTENCY_IN_PROGRESS');
    expect(created).toHaveLength(1);
    expect(replays.length + inProgress.length).toBe(19);
    for (const replay of replays) expect(replay.body).toEqual(created[0]?.body);
    const after = await table();
    expect(after.categories.filter((c) => c.name === body.name)).toHaveLength(1);
    expect(after.lastId).toBe(before.lastId + 1);
  });
});

describe('keys are scoped per customer', () => {
  it('two customers sending the same key never collide', async () => {
    const other = await makeCustomer();
    const key = 'shared-key-0001';
    const mine = await post({ name: unique('Mine') }, key);
    const theirs = await post({ name: unique('Theirs') }, key, other.apiKey);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.has('idempotent-replayed')).toBe(false);
    expect(successBody(createCategory, theirs).id).not.toBe(successBody(createCategory, mine).id);
  });
});

describe('a malformed Idempotency-Key', () => {
  // Sent twice: fetch joins repeated fields into one value, so that case is in test/categories/idempotency.test.ts.
  it.each<[string, string]>([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not printable ASCII (a tab inside)', 'abc\tdef'],
  ])('%s: 400 VALIDATION_FAILED naming the header, before the body is read, and nothing written', async (_what, key) => {
    const stored = await table();
    const answer = await post('{"name":', key);
    expectError(answer, 400, 'VALIDATION_FAILED');
    expect(errorBody(answer).message).toMatch(/^"Idempotency-Key" .*1 to 255 printable ASCII characters/);
    expect((await table()).lastId).toBe(stored.lastId);
  });

  it('non-ASCII is refused too (sent as raw bytes, as a client may)', async () => {
    const answer = await post({ name: unique('Latin') }, Buffer.from('clé', 'utf8').toString('latin1'));
    expectError(answer, 400, 'VALIDATION_FAILED');
  });

  it('accepts 1 and 255 printable ASCII characters, spaces and punctuation included', async () => {
    for (const key of ['k', `${'~'.repeat(127)} ${'!'.repeat(127)}`]) expect((await post({ name: unique('Edge') }, key)).status).toBe(201);
  });
});

describe('after the 24 hours a key is remembered', () => {
  it('a replay behaves as a new request, whether DynamoDB has deleted the record yet or not', async () => {
    const key = randomUUID();
    const body = { name: unique('Expired') };
    const first = await post(body, key);
    expect(first.status).toBe(201);
    const { customerId } = customer();
    expect(await record(customerId, key)).toMatchObject({ status: 'COMPLETED', expiration: expect.any(Number) });
    const remembered = v.parse(v.number(), (await record(customerId, key))?.expiration);
    expect(remembered - Date.now() / 1000).toBeGreaterThan(86_400 - 60);

    // TTL deletion runs some time after expiry (up to days): an expired record still in the table is ignored.
    await testDb.send(
      new UpdateCommand({
        TableName: IDEMPOTENCY_TABLE,
        Key: { id: recordId(customerId, key) },
        UpdateExpression: 'SET expiration = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    const later = await post(body, key);
    // A new request: it runs, and the name it asks for is taken by the first.
    expectError(later, 409, 'CATEGORY_EXISTS');
    expect(later.headers.has('idempotent-replayed')).toBe(false);

    const renamed = { name: unique('Expired again') };
    const key2 = randomUUID();
    expect((await post(renamed, key2)).status).toBe(201);
    // Or deleted by TTL: the same, and another body is no longer a reuse.
    await testDb.send(new DeleteCommand({ TableName: IDEMPOTENCY_TABLE, Key: { id: recordId(customerId, key2) } }));
    const another = await post({ name: unique('After expiry') }, key2);
    expect(another.status).toBe(201);
    expect(another.headers.has('idempotent-replayed')).toBe(false);
  });
});
