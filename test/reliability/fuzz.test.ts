/**
 * Property-based fuzzing through the local gateway: random methods, paths, headers, Authorization values, content
 * types and bodies (JSON and not). Every answer keeps the contract's shape and is never a 5xx, and afterwards the
 * categories table holds exactly the categories that were answered 201, with no half-written create.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../lib/auth/keys.js';
import { createCategory } from '../../lib/routes.js';
import { successBody } from '../support/answer.js';
import { categoryIntegrity, type StoredCategory } from '../support/category-integrity.js';
import { type Answer, contractViolations, send } from '../support/contract-answer.js';
import { makeCustomer, type TestCustomer, testAuthStore, testDb, withBrokenChecksum } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { useGateway } from '../support/http.js';

const { url, customer } = useGateway();
let revoked: TestCustomer;
let free: TestCustomer;

beforeAll(async () => {
  revoked = await makeCustomer('pro');
  await testAuthStore.revokeKey(revoked.keyId);
  free = await makeCustomer('free');
});

const printable = (min: number, max: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: min, maxLength: max });

/** Who the request claims to be: absent, broken in every way the authorizer knows, or valid. */
const authorization = fc.oneof(
  { weight: 6, arbitrary: fc.constant('valid') },
  { weight: 1, arbitrary: fc.constant('free') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  fc.constantFrom('revoked', 'staging', 'unknown', 'checksum', 'no-scheme', 'basic', 'lowercase', 'empty-bearer'),
  printable(0, 60),
);

function authorizationHeader(kind: string | undefined): string | undefined {
  const key = customer().apiKey;
  switch (kind) {
    case undefined:
      return undefined;
    case 'valid':
      return `Bearer ${key}`;
    case 'free':
      return free.authorization;
    case 'lowercase':
      return `bEaReR ${key}`;
    case 'revoked':
      return revoked.authorization;
    case 'staging':
      return `Bearer ${generateKey('staging')}`;
    case 'unknown':
      return `Bearer ${generateKey('production')}`;
    case 'checksum':
      return `Bearer ${withBrokenChecksum(key)}`;
    case 'no-scheme':
      return key;
    case 'basic':
      return `Basic ${Buffer.from(`user:${key}`).toString('base64')}`;
    case 'empty-bearer':
      return 'Bearer ';
    default:
      return kind;
  }
}

const segment = fc.oneof(fc.constantFrom('categories', 'rate-limit', 'pets', 'store', 'orders', '1', '%2e%2e', ''), printable(1, 12));
const path = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('/v1/categories', '/v1/categories', '/v1/rate-limit', '/v1/pets/7', '/v1/store/orders') },
  fc.constantFrom(
    '/v1/pets/abc',
    '/v1/pets/',
    '/v1/categories/',
    '/v1',
    '/v1/',
    '/',
    '/categories',
    '/v2/categories',
    '/v1/categories?x=1',
  ),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/v1/${parts.map(encodeURIComponent).join('/')}`),
);
const method = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST') }, fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS'));
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    undefined,
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/vnd.api+json',
    'application/problem+json',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'application/jsonx',
  ),
  printable(0, 40),
);

const name = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 24 }) },
  fc.constantFrom('Dog', 'dog', ' DOG ', 'Cat', 'Café', 'Cafe\u0301', '', '   ', 'a\u0000b', 'x'.repeat(100), 'x'.repeat(101)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 110 }),
);
const newCategory = fc.record(
  { name, description: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('d'.repeat(501))) },
  { requiredKeys: ['name'] },
);
const body = fc.oneof(
  { weight: 6, arbitrary: newCategory.map((c) => JSON.stringify(c)) },
  fc.json().map(String),
  fc.record({ name, id: fc.integer() }).map((c) => JSON.stringify(c)),
  fc.record({ name, extra: fc.anything() }).map((c) => JSON.stringify(c)),
  fc.string({ maxLength: 60 }),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('{', '{"name":"Dog"', 'null', '[]', '"Dog"', '{"name":null}', '{"name":7}', '\uFEFF{"name":"bom"}'),
  fc.constant(JSON.stringify({ name: 'big', description: 'x'.repeat(17_000) })),
  fc.constant(undefined),
);
const headerName = fc.oneof(
  fc.constantFrom(
    'accept',
    'accept-encoding',
    'x-forwarded-for',
    'x-request-id',
    'x-api-key',
    'cookie',
    'origin',
    'x-amz-date',
    'idempotency-key',
  ),
  fc.stringMatching(/^x-[a-z0-9-]{1,16}$/),
);
const extraHeaders = fc.dictionary(headerName, printable(0, 40), { maxKeys: 4 });

const anyRequest = fc.record({ method, path, authorization, contentType, body, extraHeaders });
type FuzzRequest = typeof anyRequest extends fc.Arbitrary<infer T> ? T : never;
/** Most random requests die at routing or the key; these get as far as the create's validation and storage. */
const plausibleCreate: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constant('POST'),
  path: fc.constant('/v1/categories'),
  authorization: fc.constant<string | undefined>('valid'),
  contentType: fc.constantFrom<string | undefined>('application/json', 'application/json; charset=utf-8'),
  body: fc.oneof(
    newCategory.map((c) => JSON.stringify(c)),
    body,
  ),
  extraHeaders,
});
const request = fc.oneof({ weight: 2, arbitrary: plausibleCreate }, { weight: 3, arbitrary: anyRequest });

const created: StoredCategory[] = [];
const statuses = new Map<number, number>();
let sent = 0;

async function fire(r: FuzzRequest): Promise<Answer> {
  const headers = new Headers(r.extraHeaders);
  const auth = authorizationHeader(r.authorization);
  if (auth !== undefined) headers.set('Authorization', auth);
  if (r.contentType !== undefined) headers.set('Content-Type', r.contentType);
  const hasBody = r.body !== undefined && r.method !== 'GET';
  const origin = new URL(url()).origin;
  const answer = await send(`${origin}${r.path}`, { method: r.method, headers, ...(hasBody ? { body: r.body } : {}) });
  sent++;
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  // A replay (a random Idempotency-Key that came up twice with the same body) is the first 201 again, not a new one.
  if (answer.status === 201 && answer.headers.get('idempotent-replayed') !== 'true') {
    created.push(successBody(createCategory, answer));
  }
  return answer;
}

afterAll(() => {
  const histogram = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`);
  console.log(`fuzz: ${sent} requests, ${created.length} categories created; statuses ${histogram.join(' ')}`);
});

describe('fuzzing through the local gateway', () => {
  it('every answer to random requests, alone or in parallel, keeps the contract and is never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (batch) => {
        const answers = await Promise.all(batch.map(fire));
        for (const [i, answer] of answers.entries()) {
          expect(contractViolations(answer), JSON.stringify({ request: batch[i], answer: answer.text.slice(0, 200) })).toEqual([]);
        }
      }),
      { numRuns: 150, endOnFailure: true },
    );
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0);
  }, 120_000);

  it('a 201 answer echoes the id and the stored name; the list holds exactly the categories answered 201', async () => {
    const listed = await send(`${url()}/categories`, { headers: { Authorization: customer().authorization } });
    expect(listed.status).toBe(200);
    const byId = (a: StoredCategory, b: StoredCategory) => a.id - b.id;
    expect(listed.body).toEqual([...created].sort(byId));
    expect(created.map((c) => c.id).sort((a, b) => a - b)).toEqual(created.map((_, i) => i + 1));
  });

  it('the table holds no half-written create: every name reservation has its category, and the counter is the last id', async () => {
    const table = await categoryIntegrity(testDb, testTable('CATEGORIES_TABLE'));
    expect(table.problems).toEqual([]);
    expect(table.categories).toHaveLength(created.length);
    expect(table.reservations).toBe(created.length);
    expect(table.lastId).toBe(created.length);
  });
});
