/**
 * Each customer's share of the categories, against DynamoDB Local: at most CATEGORY_ALLOWANCE (100 unless the stage
 * says otherwise) per customer, exact when creates race from several instances, given back by a delete; and the
 * environment's cap, which counts the categories held, so a delete makes room there too.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { assert, describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { categoryModeration } from '../../lib/categories/moderation.js';
import { CATEGORY_ALLOWANCE_DEFAULT, CATEGORY_CAP } from '../../lib/categories/schema.js';
import { CategoryLimitReached, categoryStore } from '../../lib/categories/store.js';
import { config } from '../../lib/config.js';
import { createDocumentClient, createDynamoClient, documentClient } from '../../lib/dynamo/client.js';
import { errorBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { invoke, proxyEvent, TEST_AUTHORIZER } from '../support/events.js';

const table = testTable('CATEGORIES_TABLE');
const customer = () => `share-${randomUUID().slice(0, 8)}`;
/** A store as one Lambda instance has it: a client and a memory of the counter of its own. */
const instance = () => categoryStore(createDocumentClient(createDynamoClient(process.env.DYNAMODB_ENDPOINT)), table);
const moderation = categoryModeration(documentClient(), table);
/** POST /categories as `customerId` would send it, after the authorizer accepted its key. */
const postAs = (customerId: string, name: string) =>
  invoke(
    create,
    proxyEvent({
      method: 'POST',
      path: '/categories',
      body: JSON.stringify({ name }),
      headers: { 'Content-Type': 'application/json' },
      authorizer: { ...TEST_AUTHORIZER, customerId },
    }),
  );

describe('each customer may hold CATEGORY_ALLOWANCE categories', () => {
  it('is 100 unless the stage says otherwise', () => {
    expect(CATEGORY_ALLOWANCE_DEFAULT).toBe(100);
    expect(config().CATEGORY_ALLOWANCE).toBe(100);
  });

  it('holding 90, 30 creates racing from four instances: exactly 10 created, 20 refused with the allowance message', async () => {
    const racer = customer();
    const first = instance();
    for (let i = 0; i < 90; i++) await first.create({ name: `Race ${racer} ${i}` }, racer);
    const instances = Array.from({ length: 4 }, instance);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (instances[i % 4] ?? first).create({ name: `Race ${racer} ${90 + i}` }, racer).then(
          () => 'created',
          (error: unknown) => (error instanceof CategoryLimitReached ? error.message : `unexpected: ${error}`),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(10);
    const refusals = outcomes.filter((o) => o !== 'created');
    expect(refusals).toHaveLength(20);
    expect(new Set(refusals)).toEqual(
      new Set([
        'Your allowance of 100 categories in this environment is used up (it counts the categories you created that still exist); no more can be created',
      ]),
    );
    const stored = await categoryIntegrity(testDb, table);
    expect(stored.problems).toEqual([]);
    expect([...stored.createdBy.values()].filter((c) => c === racer)).toHaveLength(100);
    // Another customer is not held back by this one's allowance.
    await expect(instance().create({ name: `Other ${racer}` }, customer())).resolves.toMatchObject({ name: `Other ${racer}` });
  });

  it('through the handler chain: the 101st create is 409 CATEGORY_LIMIT_REACHED naming the allowance, and writes nothing', async () => {
    const full = customer();
    const store = instance();
    for (let i = 0; i < 99; i++) await store.create({ name: `Full ${full} ${i}` }, full);
    expect((await postAs(full, `Full ${full} 99`)).status).toBe(201);
    const before = await categoryIntegrity(testDb, table);
    const refused = await postAs(full, `Full ${full} 100`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: 'CATEGORY_LIMIT_REACHED',
      status: 409,
      message: expect.stringMatching(/^Your allowance of 100 categories in this environment is used up/),
    });
    const after = await categoryIntegrity(testDb, table);
    expect(after).toEqual(before);
    // A name already taken by someone else: still the allowance, the answer the customer can act on first.
    expect(errorBody(await postAs(full, `Other ${full}`)).code).toBe('CATEGORY_LIMIT_REACHED');
  });

  it('a deleted category gives its place back: one more create, and only one', async () => {
    const owner = customer();
    const store = instance();
    for (let i = 0; i < 100; i++) await store.create({ name: `Owned ${owner} ${i}` }, owner);
    await expect(store.create({ name: `Owned ${owner} 100` }, owner)).rejects.toThrow(CategoryLimitReached);
    const [first] = await moderation.list({ createdBy: owner });
    if (!first) throw new Error('no category listed');
    await moderation.remove(first);
    await expect(store.create({ name: `Owned ${owner} 100` }, owner)).resolves.toMatchObject({ name: `Owned ${owner} 100` });
    await expect(store.create({ name: `Owned ${owner} 101` }, owner)).rejects.toThrow(CategoryLimitReached);
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  });
});

describe(`the environment's cap of ${CATEGORY_CAP} counts the categories held`, () => {
  it('refuses with its own message when full, and admits again once a delete made room, even on an instance that saw it full', async () => {
    const held = (await categoryIntegrity(testDb, table)).categories.length;
    // As if the environment had handed out ids up to the cap with all but `held` deleted: held + 1000 - held = full.
    const { Attributes } = await testDb.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: 'COUNTER', sk: 0 },
        UpdateExpression: 'SET deletedCount = :deleted, lastId = :lastId',
        ExpressionAttributeValues: { ':deleted': held, ':lastId': CATEGORY_CAP + held },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const previous = v.parse(v.object({ lastId: v.number(), deletedCount: v.optional(v.number()) }), Attributes);
    const store = instance();
    const someone = customer();
    const refused = await store.create({ name: `Capped ${someone}` }, someone).catch((error: unknown) => error);
    assert.instanceOf(refused, CategoryLimitReached);
    expect(refused.message).toBe(`This environment already holds the maximum of ${CATEGORY_CAP} categories; no more can be created`);

    // An operator's delete (one more deleted on the counter) makes room for exactly one.
    await testDb.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: 'COUNTER', sk: 0 },
        UpdateExpression: 'ADD deletedCount :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    await expect(store.create({ name: `Capped ${someone}` }, someone)).resolves.toMatchObject({ id: CATEGORY_CAP + held + 1 });
    await expect(store.create({ name: `Capped again ${someone}` }, someone)).rejects.toThrow(CategoryLimitReached);

    // Put the counter back as the categories are, for the tests after this one.
    await testDb.send(
      new PutCommand({
        TableName: table,
        Item: { pk: 'COUNTER', sk: 0, lastId: CATEGORY_CAP + held + 1, deletedCount: CATEGORY_CAP + held + 1 - (held + 1) },
      }),
    );
    expect(previous.lastId).toBeGreaterThan(0);
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  });
});
