/**
 * The categories' names and each customer's share of them over HTTP through the local gateway: invisible characters
 * refused naming the field, names that look alike refused as taken, and the 101st category of one customer refused
 * as its allowance while another customer still creates. Every answer is checked against openapi.json.
 */
import { describe, expect, it } from 'vitest';
import { categoryModeration } from '../../lib/categories/moderation.js';
import { categoryStore } from '../../lib/categories/store.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { listCategories } from '../../lib/routes.js';
import { errorBody, successBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { makeCustomer, testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { useGateway } from '../support/http.js';

const { call } = useGateway();
const table = testTable('CATEGORIES_TABLE');
const post = (name: string, key?: string) =>
  call('/categories', { method: 'POST', body: JSON.stringify({ name }), headers: { 'Content-Type': 'application/json' }, key });

describe('POST /v1/categories: names', () => {
  it.each([
    ['Dog\u200b', 'U+200B'],
    ['\u202egoD', 'U+202E'],
  ])('%j is 400 VALIDATION_FAILED naming "name" and the character, and is not stored', async (name, codePoint) => {
    const answer = await post(name);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'VALIDATION_FAILED',
      status: 400,
      message: expect.stringContaining(`"name" must not contain invisible characters`),
    });
    expect(errorBody(answer).message).toContain(codePoint);
    const listed = successBody(listCategories, await call('/categories'));
    expect(listed.some((c) => c.name === name.trim())).toBe(false);
  });

  it.each([
    ['Straße', 'STRASSE'],
    ['ﬁsh', 'fish'],
  ])('%s then %s: 201, then 409 CATEGORY_EXISTS', async (first, second) => {
    expect((await post(first)).status).toBe(201);
    const refused = await post(second);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CATEGORY_EXISTS', status: 409 });
  });
});

describe("POST /v1/categories: each customer's allowance", () => {
  it('the 101st category of one customer is 409 CATEGORY_LIMIT_REACHED naming its allowance; another customer still creates', async () => {
    const heavy = await makeCustomer();
    // 99 made as its earlier requests would have made them, the 100th and 101st over HTTP.
    const store = categoryStore(documentClient(), table);
    for (let i = 0; i < 99; i++) await store.create({ name: `Heavy ${heavy.customerId} ${i}` }, heavy.customerId);
    expect((await post(`Heavy ${heavy.customerId} 99`, heavy.apiKey)).status).toBe(201);
    const refused = await post(`Heavy ${heavy.customerId} 100`, heavy.apiKey);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      code: 'CATEGORY_LIMIT_REACHED',
      status: 409,
      message: expect.stringMatching(/^Your allowance of 100 categories in this environment is used up/),
    });
    const other = await makeCustomer();
    expect((await post(`Light ${other.customerId}`, other.apiKey)).status).toBe(201);

    // An operator deletes one of the heavy customer's: it may create one again.
    const moderation = categoryModeration(documentClient(), table);
    const [oldest] = await moderation.list({ createdBy: heavy.customerId });
    if (!oldest) throw new Error('none listed');
    await moderation.remove(oldest);
    expect((await post(`Heavy ${heavy.customerId} 100`, heavy.apiKey)).status).toBe(201);
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  });
});
