/** The documented cap: at most CATEGORY_CAP categories per environment, then 409 CATEGORY_LIMIT_REACHED. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { CATEGORY_CAP } from '../../lib/categories/schema.js';
import { testDb } from '../support/customers.js';
import { invoke, jsonPost } from '../support/events.js';

const counter = async () =>
  (await testDb.send(new GetCommand({ TableName: process.env.CATEGORIES_TABLE, Key: { pk: 'COUNTER', sk: 0 }, ConsistentRead: true })))
    .Item;

describe('category cap', () => {
  it(`creates the ${CATEGORY_CAP}th category, then refuses with 409 CATEGORY_LIMIT_REACHED and writes nothing`, async () => {
    // As if CATEGORY_CAP - 1 categories existed already: the counter is what the cap is checked against.
    await testDb.send(
      new PutCommand({ TableName: process.env.CATEGORIES_TABLE, Item: { pk: 'COUNTER', sk: 0, lastId: CATEGORY_CAP - 1 } }),
    );
    const last = await invoke(create, jsonPost('{"name":"The last one"}'));
    expect(last.status).toBe(201);
    expect(last.body).toMatchObject({ id: CATEGORY_CAP });

    const refused = await invoke(create, jsonPost('{"name":"One too many"}'));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 'CATEGORY_LIMIT_REACHED', message: expect.stringMatching(/1000/), status: 409 });
    expect(await counter()).toMatchObject({ lastId: CATEGORY_CAP });
    const name = await testDb.send(new GetCommand({ TableName: process.env.CATEGORIES_TABLE, Key: { pk: 'NAME#one too many', sk: 0 } }));
    expect(name.Item).toBeUndefined();
  });
});
