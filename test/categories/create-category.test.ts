/**
 * createCategory through the real Middy chain against DynamoDB Local: every NewCategory rule of the interface (docs/api.md) and
 * every error row that applies, each leaving the table unchanged.
 */
import { assert, describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { handler as list } from '../../functions/list-categories.js';
import { createCategory, listCategories } from '../../lib/routes.js';
import { errorBody, successBody } from '../support/answer.js';
import { invoke, jsonPost, proxyEvent } from '../support/events.js';

const listAll = async () => successBody(listCategories, await invoke(list, proxyEvent()));
const created = async (body: string) => successBody(createCategory, await invoke(create, jsonPost(body)));

async function expectRefused(body: string | null, status: number, code: string, headers?: Record<string, string>) {
  const before = await listAll();
  const answer = await invoke(create, jsonPost(body, headers));
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ code, status });
  const error = errorBody(answer);
  expect(typeof error.message).toBe('string');
  expect(answer.headers.get('Content-Type')).toBe('application/json');
  expect(answer.headers.get('X-Request-Id')).toBeTruthy();
  expect(await listAll()).toEqual(before);
  return error;
}

describe('createCategory: accepted bodies', () => {
  it('answers 201 with the category and its new id', async () => {
    const answer = await invoke(create, jsonPost('{"name":"Rabbit","description":"Small and fluffy"}'));
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ id: expect.any(Number), name: 'Rabbit', description: 'Small and fluffy' });
    expect(answer.headers.get('X-Request-Id')).toBeTruthy();
  });

  it('trims and NFC-normalises the name, and omits an unset description', async () => {
    const answer = await invoke(create, jsonPost(JSON.stringify({ name: '  Cafe\u0301 cat  ' })));
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ id: expect.any(Number), name: 'Caf\u00e9 cat' });
  });

  it('accepts a name of exactly 100 characters (counted as code points) and a 500-character description', async () => {
    const name = '🐕'.repeat(100);
    const answer = await invoke(create, jsonPost(JSON.stringify({ name, description: 'd'.repeat(500) })));
    expect(answer.status).toBe(201);
    expect(successBody(createCategory, answer).name).toBe(name);
  });

  it('accepts application/json with a charset parameter and any header case', async () => {
    const answer = await invoke(create, jsonPost('{"name":"Hamster"}', { 'CONTENT-TYPE': 'Application/JSON; charset=utf-8' }));
    expect(answer.status).toBe(201);
  });

  it('gives ids 1, 2, 3 … in creation order, and lists them in that order', async () => {
    const ids: number[] = [];
    for (const name of ['Order A', 'Order B', 'Order C']) {
      ids.push((await created(JSON.stringify({ name }))).id);
    }
    const [first] = ids;
    assert.isDefined(first);
    expect(ids[1]).toBe(first + 1);
    expect(ids[2]).toBe(first + 2);
    const listed = (await listAll()).map((c) => c.id);
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
    expect(listed).toEqual(expect.arrayContaining(ids));
  });
});

describe('createCategory: MALFORMED_JSON (400)', () => {
  it.each([
    ['a missing body', null],
    ['an empty body', ''],
    ['broken JSON', '{"name": "Dog"'],
    ['a bare word', 'Dog'],
    ['a trailing comma', '{"name":"Dog",}'],
  ])('for %s', async (_, body) => {
    await expectRefused(body, 400, 'MALFORMED_JSON');
  });
});

describe('createCategory: VALIDATION_FAILED (400) names the field', () => {
  it.each([
    ['name missing', '{}', 'name'],
    ['name null', '{"name":null}', 'name'],
    ['name a number', '{"name":42}', 'name'],
    ['name an object', '{"name":{"en":"Dog"}}', 'name'],
    ['name empty', '{"name":""}', 'name'],
    ['name only white space', '{"name":" \\t\\n "}', 'name'],
    ['name of 101 characters', JSON.stringify({ name: 'x'.repeat(101) }), 'name'],
    ['name with a control character', '{"name":"Do\\u0007g"}', 'name'],
    ['name with a newline inside', '{"name":"Do\\ng"}', 'name'],
    ['description a number', '{"name":"Dog","description":5}', 'description'],
    ['description null', '{"name":"Dog","description":null}', 'description'],
    ['description of 501 characters', JSON.stringify({ name: 'Dog', description: 'd'.repeat(501) }), 'description'],
    ['an id in the body', '{"id":7,"name":"Dog"}', 'id'],
    ['an unknown field', '{"name":"Dog","colour":"brown"}', 'colour'],
  ])('for %s', async (_, body, field) => {
    const error = await expectRefused(body, 400, 'VALIDATION_FAILED');
    expect(error.message).toContain(`"${field}"`);
  });

  it.each([
    ['null', 'null'],
    ['an array', '[{"name":"Dog"}]'],
    ['a string', '"Dog"'],
    ['a number', '42'],
    ['true', 'true'],
  ])('for a body that is %s rather than an object', async (_, body) => {
    const error = await expectRefused(body, 400, 'VALIDATION_FAILED');
    expect(error.message).toMatch(/JSON object/);
  });
});

describe('createCategory: UNSUPPORTED_MEDIA_TYPE (415)', () => {
  it.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['form encoded', { 'Content-Type': 'application/x-www-form-urlencoded' }],
    ['no Content-Type at all', {}],
    ['application/jsonx', { 'Content-Type': 'application/jsonx' }],
  ])('for %s', async (_, headers) => {
    await expectRefused('{"name":"Dog"}', 415, 'UNSUPPORTED_MEDIA_TYPE', headers);
  });
});

describe('createCategory: PAYLOAD_TOO_LARGE (413)', () => {
  it('refuses a body over 16 KiB', async () => {
    await expectRefused(JSON.stringify({ name: 'Big', description: 'x'.repeat(17_000) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('accepts up to 16 KiB of body (then judges it on its fields)', async () => {
    const body = JSON.stringify({ name: 'Padded', description: 'x'.repeat(400) }).padEnd(16 * 1024, ' ');
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    expect((await invoke(create, jsonPost(body))).status).toBe(201);
  });
});

describe('createCategory: CATEGORY_EXISTS (409)', () => {
  it('refuses a name already taken, compared ignoring case and surrounding spaces', async () => {
    expect((await invoke(create, jsonPost('{"name":"Parrot"}'))).status).toBe(201);
    for (const name of ['Parrot', 'parrot', '  PARROT ']) {
      await expectRefused(JSON.stringify({ name }), 409, 'CATEGORY_EXISTS');
    }
  });

  it('does not spend an id on a refused create', async () => {
    const first = await created('{"name":"Gap check 1"}');
    await expectRefused('{"name":"gap check 1"}', 409, 'CATEGORY_EXISTS');
    const second = await created('{"name":"Gap check 2"}');
    expect(second.id).toBe(first.id + 1);
  });
});

describe('createCategory: nesting deeper than 32 levels is VALIDATION_FAILED (400), found before parsing', () => {
  const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('judges a body 32 levels deep on its fields, and refuses one 33 deep saying the limit', async () => {
    const at32 = await expectRefused(`{"name":"Dog","extra":${arrays(31)}}`, 400, 'VALIDATION_FAILED');
    expect(at32.message).toContain('"extra"');
    const at33 = await expectRefused(`{"name":"Dog","extra":${arrays(32)}}`, 400, 'VALIDATION_FAILED');
    expect(at33.message).toBe('The request body nests arrays and objects more than 32 levels deep; the limit is 32 levels');
  });

  it.each([
    ['4,000 arrays (8 KB)', arrays(4_000)],
    ['8,000 arrays, the most 16 KiB holds', arrays(8_000)],
    ['2,000 objects after a __proto__ key', `{"__proto__":1,"name":"Dog","x":${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}}`],
    ['5,000 brackets never closed', '['.repeat(5_000)],
  ])('for %s', async (_, body) => {
    const error = await expectRefused(body, 400, 'VALIDATION_FAILED');
    expect(error.message).toContain('32 levels');
  });

  it('does not count brackets inside strings, escaped quotes included', async () => {
    const answer = await invoke(create, jsonPost(JSON.stringify({ name: `Brackets \\" ${'['.repeat(60)}` })));
    expect(answer.status).toBe(201);
  });

  it('names the first string that is not well-formed Unicode, in document order, however deep', async () => {
    const deep = await expectRefused(`{"name":"Dog","x":[1,[{"y":["ok","\\ud800"]}]],"z":"\\udc00"}`, 400, 'VALIDATION_FAILED');
    expect(deep.message).toContain('"x[1][0].y[1]"');
    const key = await expectRefused('{"name":"Dog","\\ud800":"\\udc00"}', 400, 'VALIDATION_FAILED');
    expect(key.message).toMatch(/^A field name/);
  });
});
