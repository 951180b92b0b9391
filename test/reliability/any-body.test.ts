/**
 * No request body gets a 5xx (the contract's "Bodies"): arbitrary JSON values and arbitrary bytes up to the 16 KiB
 * limit, with a valid Content-Type, another one or none, POSTed to /v1/categories through the local gateway over
 * HTTP. Beside fast-check's own arbitraries, hand-written generators make what random values rarely reach: nesting
 * thousands of levels deep (balanced, unbalanced, inside strings), the 32/33 boundary, long strings, many keys,
 * duplicate keys, `__proto__` and `constructor`, numbers out of range, lone surrogates (escaped, and as raw bytes),
 * byte order marks and invalid UTF-8.
 *
 * Every answer keeps the contract (and openapi.json), and nothing is stored unless the answer is 201: the
 * categories are counted after each request (the count before is the last one's), and the table's invariants are
 * checked at the end. The key is the default test customer's (Enterprise, limits no run reaches; its share of the
 * categories, 100, is more than a run creates, about 45).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CategorySchema } from '../../lib/categories/schema.js';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from '../../lib/http/json-body.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { contractViolations } from '../support/contract-answer.js';
import { testDb } from '../support/customers.js';
import { useGateway } from '../support/http.js';

/**
 * Runs of each property (400 + 400 = 800 requests): enough to meet every hand-written kind many times over, and well
 * under a minute for both on 2 shared cores (about 15 s). The test prints nothing; a failure shows the body and
 * fast-check's seed and path to replay it.
 */
const JSON_RUNS = 400;
const BYTE_RUNS = 400;

const { call } = useGateway();
const CATEGORIES_TABLE = process.env.CATEGORIES_TABLE ?? '';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const clip = (bytes: Buffer) => bytes.subarray(0, MAX_BODY_BYTES);

/** Arrays and objects `depth` levels deep around `core`, closed or not. */
function nested(depth: number, kind: 'array' | 'object' | 'mixed', closed: boolean, core = '1'): string {
  const opens: string[] = [];
  const closes: string[] = [];
  for (let i = 0; i < depth; i++) {
    const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    opens.push(array ? '[' : '{"a":');
    closes.push(array ? ']' : '}');
  }
  return `${opens.join('')}${core}${closed ? closes.reverse().join('') : ''}`;
}

const depth = fc.oneof(
  fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }),
  fc.integer({ min: 1, max: 5_000 }),
  fc.constant(4_000), // the 8 KB body
);
const deepNesting = fc
  .record({
    depth,
    kind: fc.constantFrom('array', 'object', 'mixed'),
    closed: fc.boolean(),
    where: fc.constantFrom('top', 'field', 'field after __proto__', 'string'),
  })
  .map(({ depth, kind, closed, where }) => {
    const deep = nested(depth, kind, closed);
    if (where === 'top') return deep;
    // Inside a string, brackets are characters of a name: they never count as nesting.
    if (where === 'string') return JSON.stringify({ name: `x${'['.repeat(Math.min(depth, 98))}` });
    // After a `__proto__` key, the body parser's guard stops before it reaches the deep value, which is then parsed
    // without it and checked like any other.
    const proto = where === 'field after __proto__' ? '"__proto__":1,' : '';
    return `{${proto}"name":"Deep","extra":${deep}${closed ? '}' : ''}`;
  });

const longString = fc
  .record({
    length: fc.integer({ min: 90, max: MAX_BODY_BYTES - 40 }),
    field: fc.constantFrom('name', 'description', 'other'),
    char: fc.constantFrom('x', 'é', '🐕', '\\"'),
  })
  .map(({ length, field, char }) => `{"name":"Long","${field}":"${char.repeat(Math.floor(length / Buffer.byteLength(char)))}"}`);

const manyKeys = fc.record({ count: fc.integer({ min: 10, max: 1_200 }), withName: fc.boolean() }).map(({ count, withName }) => {
  const keys = Array.from({ length: count }, (_, i) => `"k${i}":${i}`);
  return `{${withName ? '"name":"Keys",' : ''}${keys.join(',')}}`;
});

const duplicateKeys = fc
  .tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }))
  .map(([name, other]) => `{"name":${JSON.stringify(name)},"name":${JSON.stringify(other)}}`);

const prototypeKeys = fc.constantFrom(
  '{"__proto__":{"name":"Polluted"}}',
  '{"name":"Proto","__proto__":{"admin":true}}',
  '{"name":"Proto","__proto__":1}',
  '{"name":"Ctor","constructor":{"prototype":{"admin":true}}}',
  '{"constructor":{"prototype":{}},"name":"Ctor"}',
  '{"name":"Nested","x":{"__proto__":{"y":1}}}',
  '{"name":"__proto__"}',
  '{"name":"constructor"}',
);

const hugeNumber = fc.constantFrom('1e400', '-1e999', '1e-400', `1${'0'.repeat(400)}`, `0.${'0'.repeat(400)}1`, '9007199254740993', '-0');
const outOfRange = hugeNumber.chain((n) =>
  fc.constantFrom(n, `{"name":${n}}`, `{"name":"Big","description":${n}}`, `{"name":"Big","id":${n}}`, `[${n}]`),
);

const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => `\\u${unit.toString(16)}`);
const loneSurrogate = fc.tuple(surrogate, fc.constantFrom('name', 'description', 'key', 'deep')).map(([unit, where]) => {
  if (where === 'key') return `{"name":"Key","${unit}":1}`;
  if (where === 'deep') return `{"name":"Deep","x":[[{"y":["${unit}"]}]]}`;
  return where === 'name' ? `{"name":"Lone ${unit}"}` : `{"name":"Lone","description":"${unit}"}`;
});

/** Bytes that no UTF-8 decoder accepts, alone or inside an otherwise good body. */
const invalidUtf8 = fc
  .tuple(
    fc.constantFrom(
      [0xc0, 0xaf],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xff],
      [0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ),
    fc.boolean(),
  )
  .map(([bad, inside]) => (inside ? Buffer.concat([utf8('{"name":"Bad '), Buffer.from(bad), utf8('"}')]) : Buffer.from(bad)));

/** Byte order marks before a good body: UTF-8's, and UTF-16's with the body in UTF-16. */
const byteOrderMark = fc.constantFrom(
  Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('{"name":"Bom"}')]),
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"name":"Bom"}', 'utf16le')]),
  Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('{"name":"Bom"}', 'utf16le').swap16()]),
  utf8('\uFEFF{"name":"Bom"}'),
  utf8('{"name":"\uFEFFBom"}'),
);

/** Bodies that may well be created, so that the properties also see 201s and what they store. */
const plausibleCategory = fc
  .record(
    { name: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), description: fc.string({ maxLength: 60 }) },
    { requiredKeys: ['name'] },
  )
  .map((c) => JSON.stringify(c));

const jsonText = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: MAX_JSON_DEPTH + 8, depthSize: 'small' }).map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: fc.json({ stringUnit: 'binary' }) },
  { weight: 3, arbitrary: plausibleCategory },
  fc
    .dictionary(fc.string({ unit: 'binary', maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 30 })
    .map((o) => JSON.stringify({ name: 'Dict', ...o })),
  deepNesting,
  longString,
  manyKeys,
  duplicateKeys,
  prototypeKeys,
  outOfRange,
  loneSurrogate,
);

const anyBytes = fc.oneof(
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)) },
  fc.uint8Array({ minLength: 1_000, maxLength: MAX_BODY_BYTES }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: 'binary', maxLength: 400 }).map(utf8),
  jsonText.map(utf8),
  invalidUtf8,
  byteOrderMark,
);

const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON') },
  fc.constantFrom(undefined, 'text/plain', 'application/json; charset=latin1', 'application/octet-stream', 'application/jsonx'),
);

const statuses = new Map<number, number>();
let created = 0;

/** Categories stored now, counted by DynamoDB (strongly consistent). */
async function storedCount(): Promise<number> {
  const { Count } = await testDb.send(
    new QueryCommand({
      TableName: CATEGORIES_TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'CATEGORY' },
      Select: 'COUNT',
      ConsistentRead: true,
    }),
  );
  return Count ?? 0;
}

/** The count after the last request, which is the next one's before: nothing else writes to this file's table. */
let stored: number | undefined;

/** POSTs `body`; checks the answer's contract, and that a category was stored exactly when it says 201. */
async function postAndCheck(body: Buffer, type: string | undefined): Promise<void> {
  const bytes = clip(body);
  const before = stored ?? (await storedCount());
  // Counted again if a check fails before this request's own count is taken.
  stored = undefined;
  const answer = await call('/categories', {
    method: 'POST',
    headers: type === undefined ? {} : { 'Content-Type': type },
    body: bytes,
  });
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const sample = bytes.subarray(0, 120).toString('latin1');
  expect(contractViolations(answer), sample).toEqual([]);
  expect(answer.status, `${answer.text.slice(0, 200)} for ${sample}`).toBeLessThan(500);
  const after = await storedCount();
  stored = after;
  if (answer.status === 201) {
    created++;
    v.parse(CategorySchema, answer.body);
    expect(after, sample).toBe(before + 1);
  } else {
    expect(after, `${answer.status} stored something for ${sample}`).toBe(before);
  }
}

describe('no request body gets a 5xx, and nothing is stored unless the answer is 201', () => {
  it(`JSON values of every kind (${JSON_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, contentType, async (text, type) => postAndCheck(utf8(text), type)),
      { numRuns: JSON_RUNS, endOnFailure: true },
    );
    // The properties are worth something only if they reach every outcome that matters.
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it(`byte strings up to 16 KiB (${BYTE_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(anyBytes, contentType, async (bytes, type) => postAndCheck(bytes, type)),
      { numRuns: BYTE_RUNS, endOnFailure: true },
    );
    expect(statuses.get(415) ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it('a body 4,000 arrays deep (8 KB) is 400 VALIDATION_FAILED saying the limit', async () => {
    const answer = await call('/categories', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: nested(4_000, 'array', true),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) });
  });

  it('leaves the table whole: every category has its reservations, the counter its last id', async () => {
    const table = await categoryIntegrity(testDb, CATEGORIES_TABLE);
    expect(table.problems).toEqual([]);
    expect(table.categories).toHaveLength(created);
  });
});
