/**
 * Every byte of the answers through the local gateway, held to a recorded file: status, each header in the order it
 * is sent, and the body, for one request of every kind the operations answer (each success, each error of the
 * chain and of the operations, replays, refusals, a ban, injected DynamoDB failures). A change to how the request
 * path is built must leave this file as it is; a change meant to alter answers shows here, header by header.
 *
 * The clock is fixed, so reset times and ban ends are the same in every run; the values that differ by design are
 * replaced: the request id (and the 500's message that quotes it) and the test customer's id. The gateway's Date
 * header is left out.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createCategory } from '../../functions/create-category.js';
import { handler as getPetById } from '../../functions/get-pet-by-id.js';
import { handler as getRateLimitStatus } from '../../functions/get-rate-limit-status.js';
import { handler as listCategories } from '../../functions/list-categories.js';
import { lambdaContext } from '../../infra/local/events.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { makeCustomer, type TestCustomer } from '../support/customers.js';
import { proxyEvent, TEST_AUTHORIZER } from '../support/events.js';
import { useGateway } from '../support/http.js';

const { url } = useGateway();

/** Between getPetById's deprecation and its sunset, and after the real date, so that no TTL has passed. */
const FIXED = Date.parse('2027-02-03T04:05:06.789Z');

interface Sent {
  method?: string;
  path: string;
  headers?: [string, string][];
  body?: string | Buffer;
  /** Whose key: the default customer's, the tight one's, or none. */
  as?: 'default' | 'tight' | 'none';
}

interface Recorded {
  label: string;
  status: number;
  headers: [string, string][];
  body: string;
}

let customers: { default: TestCustomer; tight: TestCustomer };

/** Fails the next commands of these names once each, before they reach DynamoDB (counters never). */
const failNext = new Map<string, Error>();
/** Commands (by name, and table variable where the input names one table) that fail, or with `hang` never answer, until the case ends. */
const faults: { command: string; table: string; error?: Error; hang?: boolean }[] = [];
const hanging: ((error: Error) => void)[] = [];

beforeAll(async () => {
  setClock(() => FIXED);
  customers = {
    default: await makeCustomer('enterprise', { perMinute: 500, perDay: 5_000 }),
    tight: await makeCustomer('enterprise', { perMinute: 2, perDay: 1_000 }),
  };
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const table = 'TableName' in args.input ? args.input.TableName : undefined;
      const fault = faults.find((f) => f.command === context.commandName && (!f.table || process.env[f.table] === table));
      if (fault?.hang) return new Promise<never>((_, reject) => hanging.push(reject));
      if (fault?.error) throw fault.error;
      const error = failNext.get(context.commandName ?? '');
      if (!error || table === process.env.COUNTERS_TABLE) return next(args);
      failNext.delete(context.commandName ?? '');
      throw error;
    },
    { step: 'initialize', name: 'answerBytesFailures' },
  );
});

afterAll(() => {
  resetClock();
});

function send(sent: Sent): Promise<{ status: number; rawHeaders: string[]; body: string }> {
  // Given as a list (so that a header can repeat), the request gets no Host header of Node's own.
  const headers: [string, string][] = [['Host', new URL(url()).host], ...(sent.headers ?? [])];
  const who = sent.as ?? 'default';
  if (who !== 'none') headers.push(['Authorization', customers[who].authorization]);
  if (sent.body !== undefined) headers.push(['Content-Length', String(Buffer.byteLength(sent.body))]);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url()}${sent.path}`, { method: sent.method ?? 'GET', headers: headers.flat() }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

async function record(label: string, sent: Sent): Promise<Recorded> {
  const { status, rawHeaders, body } = await send(sent);
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i] ?? '', rawHeaders[i + 1] ?? '']);
  const requestId = pairs.find(([name]) => name.toLowerCase() === 'x-request-id')?.[1] ?? '(none)';
  const replace = (text: string) =>
    text
      .replaceAll(requestId, '<request-id>')
      .replaceAll(customers.default.customerId, '<customer>')
      .replaceAll(customers.tight.customerId, '<tight customer>');
  return {
    label,
    status,
    headers: pairs.filter(([name]) => name.toLowerCase() !== 'date').map(([name, value]) => [name, replace(value)]),
    body: replace(body),
  };
}

const json: [string, string][] = [['Content-Type', 'application/json']];
const post = (body: string | Buffer, headers: [string, string][] = json, as?: Sent['as']): Sent => ({
  method: 'POST',
  path: '/categories',
  body,
  headers,
  as,
});
const keyed = (key: string, headers: [string, string][] = json): [string, string][] => [...headers, ['Idempotency-Key', key]];

/** Requests in order: later ones depend on what earlier ones created. */
const SCRIPT: [string, Sent][] = [
  ['list, empty', { path: '/categories' }],
  ['create', post('{"name":"Dog","description":"Domestic dogs"}')],
  ['create, second', post('{"name":"Cat"}')],
  ['list, two', { path: '/categories' }],
  ['create, name taken', post('{"name":"dog"}')],
  ['create, body missing', post('', [])],
  ['create, broken JSON', post('{"name":')],
  ['create, bare word', post('Dog')],
  ['create, byte order mark', post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Bom"}')]))],
  ['create, not UTF-8', post(Buffer.from([...Buffer.from('{"name":"Caf'), 0xe9, ...Buffer.from('"}')]))],
  ['create, too large', post(`{"name":"Big","description":"${'x'.repeat(17_000)}"}`)],
  ['create, no Content-Type', post('{"name":"Untyped"}', [])],
  ['create, text/plain', post('{"name":"Text"}', [['Content-Type', 'text/plain']])],
  ['create, +json', post('{"name":"Suffix"}', [['Content-Type', 'application/vnd.api+json']])],
  ['create, latin-1 charset', post('{"name":"Latin"}', [['Content-Type', 'application/json; charset=iso-8859-1']])],
  ['create, space before parameters', post('{"name":"Spaced type"}', [['Content-Type', 'application/json ; charset=utf-8']])],
  ['create, an array', post('[1,2]')],
  ['create, null', post('null')],
  ['create, name missing', post('{}')],
  ['create, name a number', post('{"name":42}')],
  ['create, name blank', post('{"name":"   "}')],
  ['create, unknown field', post('{"name":"Fox","colour":"red"}')],
  ['create, id sent', post('{"id":7,"name":"Fox"}')],
  ['create, __proto__', post('{"name":"Fox","__proto__":{"admin":true}}')],
  ['create, __proto__ nested', post('{"name":"Fox","description":{"__proto__":1}}')],
  ['create, __proto__ alone', post('{"__proto__":{}}')],
  ['create, constructor with prototype', post('{"name":"Fox","constructor":{"prototype":{}}}')],
  ['create, constructor plain', post('{"name":"Fox","constructor":1}')],
  ['create, lone surrogate', post('{"name":"Lone \\ud800"}')],
  ['create, control character', post('{"name":"Tab\\there"}')],
  ['create with key', post('{"name":"Rabbit"}', keyed('key-one'))],
  ['create with key, replay', post('{ "name" : "Rabbit" }', keyed('key-one'))],
  ['create with key, another body', post('{"name":"Hare"}', keyed('key-one'))],
  ['create with key, name taken', post('{"name":"Cat"}', keyed('key-two'))],
  ['create with key, name taken, replay', post('{"name":"Cat"}', keyed('key-two'))],
  ['create with key, bad body (not remembered)', post('{"name":', keyed('key-three'))],
  ['create with key, empty key', post('{"name":"Empty key"}', keyed(''))],
  ['create with key, tab in key', post('{"name":"Tab key"}', keyed('a\tb'))],
  ['create with key, key too long', post('{"name":"Long key"}', keyed('k'.repeat(256)))],
  ['create with key sent twice', post('{"name":"Twice"}', [...keyed('a'), ['Idempotency-Key', 'b']])],
  ['create with key and a bad body: the key is checked first', post('{"name":', keyed(''))],
  ['create, Authorization twice', { ...post('{"name":"Twice auth"}'), headers: [...json, ['Authorization', 'Bearer x']] }],
  ['create, no key', post('{"name":"Anonymous"}', json, 'none')],
  ['rate limit status', { path: '/rate-limit' }],
  ['pet', { path: '/pets/1' }],
  ['pet, bad id', { path: '/pets/01' }],
  ['pet, id too large', { path: '/pets/9223372036854775808' }],
  ['pet, Authorization twice', { path: '/pets/1', headers: [['Authorization', 'Bearer x']] }],
  ['store orders', { path: '/store/orders' }],
  ['store orders, trailing slash', { path: '/store/orders/' }],
  ['no such path', { path: '/nothing' }],
  ['no such method', { method: 'DELETE', path: '/categories' }],
  ['list, tight customer', { path: '/categories', as: 'tight' }],
  ['create, tight customer', post('{"name":"Tight"}', json, 'tight')],
  ['list, tight customer, refused', { path: '/categories', as: 'tight' }],
  ['create, tight customer, refused', post('{"name":"Tight two"}', json, 'tight')],
  ['create with key, tight customer, refused', post('{"name":"Tight three"}', keyed('tight-key'), 'tight')],
  ['create, tight customer, refused, bad body', post('{"name":', json, 'tight')],
  ['pet, tight customer, refused', { path: '/pets/1', as: 'tight' }],
  ['store orders, tight customer, refused', { path: '/store/orders', as: 'tight' }],
  ['rate limit status, tight customer, refused', { path: '/rate-limit', as: 'tight' }],
];

/** After the ban starts (refusals are counted toward it in batches, so it starts a moment after the threshold). */
const DURING_BAN: [string, Sent][] = [
  ['list, banned', { path: '/categories', as: 'tight' }],
  ['create, banned', post('{"name":"Banned"}', json, 'tight')],
  ['pet, banned', { path: '/pets/2', as: 'tight' }],
  ['rate limit status, banned', { path: '/rate-limit', as: 'tight' }],
];

/** With a DynamoDB failure injected into the operation's own call (never the counters). */
const FAILURES: [string, string, () => Error, Sent][] = [
  [
    'list, DynamoDB throttling',
    'QueryCommand',
    () => Object.assign(new Error('throttled'), { name: 'ThrottlingException' }),
    { path: '/categories' },
  ],
  ['create, unexpected error', 'TransactWriteItemsCommand', () => new TypeError('boom'), post('{"name":"Broken"}')],
  [
    'create with key, unexpected error',
    'TransactWriteItemsCommand',
    () => new TypeError('boom'),
    post('{"name":"Retried"}', keyed('key-four')),
  ],
  ['create with key, after the failure', '', () => new Error('unused'), post('{"name":"Retried"}', keyed('key-four'))],
  [
    'create with key, idempotency table unreachable',
    'PutItemCommand',
    () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    post('{"name":"Unclaimed"}', keyed('key-five')),
  ],
];

describe('every answer, byte for byte, as recorded', () => {
  it('matches test/http/__snapshots__/answer-bytes.txt', async () => {
    const answers: Recorded[] = [];
    for (const [label, sent] of SCRIPT) answers.push(await record(label, sent));
    // More refusals, unrecorded, until the ban shows in the status (which never counts).
    for (let i = 0; i < 50; i++) {
      const status = await send({ path: '/rate-limit', as: 'tight' });
      if (status.body.includes('"active":true')) break;
      await send({ path: '/categories', as: 'tight' });
    }
    for (const [label, sent] of DURING_BAN) answers.push(await record(label, sent));
    for (const [label, command, error, sent] of FAILURES) {
      if (command) failNext.set(command, error());
      answers.push(await record(label, sent));
      failNext.clear();
    }
    await expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot('./__snapshots__/answer-bytes.txt');
  });
});

type LambdaHandler = (event: ReturnType<typeof proxyEvent>, context: Context) => Promise<APIGatewayProxyResult | undefined>;

interface Invocation {
  handler: LambdaHandler;
  event: ReturnType<typeof proxyEvent>;
  /** Milliseconds the invocation has before Lambda's timeout. */
  timeoutMs?: number;
  faults?: (typeof faults)[number][];
  /** Invocations of the same request made first, unrecorded (to use up a window). */
  before?: number;
}

/** The operation's own answers that the gateway never lets through (its 401s), and answers at a Lambda timeout. */
describe('the answers of the operations themselves, invoked as Lambda invokes them', () => {
  const customer = (perMinute: number) => ({ ...TEST_AUTHORIZER, customerId: `bytes-${randomUUID()}`, perMinute: String(perMinute) });
  let created = 0;
  const createEvent = (authorizer: Record<string, string> | null = customer(500), headers: [string, string][] = json) =>
    proxyEvent({ method: 'POST', path: '/categories', body: `{"name":"Direct ${++created}"}`, headers, authorizer });
  const listEvent = (authorizer = customer(500)) => proxyEvent({ authorizer });
  const petEvent = (headers: [string, string][] = []) =>
    proxyEvent({ path: '/pets/3', resource: '/pets/{petId}', pathParameters: { petId: '3' }, headers, authorizer: customer(500) });
  const twice: [string, string][] = [...json, ['Authorization', 'Bearer a'], ['Authorization', 'Bearer b']];
  const oneCall = customer(1);

  const CASES: [string, () => Invocation][] = [
    ['create, no authorizer context', () => ({ handler: createCategory, event: createEvent(null) })],
    ['create, Authorization twice', () => ({ handler: createCategory, event: createEvent(undefined, twice) })],
    ['pet, Authorization twice', () => ({ handler: getPetById, event: petEvent(twice.slice(1)) })],
    [
      'create, admitted, the transaction hangs into the timeout',
      () => ({
        handler: createCategory,
        event: createEvent(),
        timeoutMs: 700,
        faults: [{ command: 'TransactWriteItemsCommand', table: '', hang: true }],
      }),
    ],
    [
      'list (runs alongside admission), admitted, the read hangs into the timeout',
      () => ({
        handler: listCategories,
        event: listEvent(),
        timeoutMs: 700,
        faults: [{ command: 'QueryCommand', table: 'CATEGORIES_TABLE', hang: true }],
      }),
    ],
    [
      'list, refused on its second call, the read hangs into the timeout: the refusal wins',
      () => ({
        handler: listCategories,
        event: listEvent(oneCall),
        timeoutMs: 700,
        before: 1,
        faults: [{ command: 'QueryCommand', table: 'CATEGORIES_TABLE', hang: true }],
      }),
    ],
    [
      'list, refused on its second call, the read fails: the refusal wins',
      () => ({
        handler: listCategories,
        event: listEvent(customer(1)),
        before: 1,
        faults: [{ command: 'QueryCommand', table: 'CATEGORIES_TABLE', error: new TypeError('boom') }],
      }),
    ],
    [
      'list, the count fails',
      () => ({
        handler: listCategories,
        event: listEvent(),
        faults: [
          {
            command: 'UpdateItemCommand',
            table: 'COUNTERS_TABLE',
            error: Object.assign(new Error('down'), { name: 'InternalServerError' }),
          },
        ],
      }),
    ],
    [
      'list, the count fails and the read fails',
      () => ({
        handler: listCategories,
        event: listEvent(),
        faults: [
          {
            command: 'UpdateItemCommand',
            table: 'COUNTERS_TABLE',
            error: Object.assign(new Error('down'), { name: 'InternalServerError' }),
          },
          { command: 'QueryCommand', table: 'CATEGORIES_TABLE', error: new TypeError('boom') },
        ],
      }),
    ],
    [
      'create, the count fails',
      () => ({
        handler: createCategory,
        event: createEvent(),
        faults: [
          {
            command: 'UpdateItemCommand',
            table: 'COUNTERS_TABLE',
            error: Object.assign(new Error('down'), { name: 'InternalServerError' }),
          },
        ],
      }),
    ],
    [
      'rate limit status, the read of the windows fails',
      () => ({
        handler: getRateLimitStatus,
        event: proxyEvent({ path: '/rate-limit', authorizer: customer(500) }),
        faults: [
          { command: 'GetItemCommand', table: 'COUNTERS_TABLE', error: Object.assign(new Error('down'), { name: 'InternalServerError' }) },
        ],
      }),
    ],
  ];

  it('match test/http/__snapshots__/answer-bytes-handlers.txt', async () => {
    const answers: Recorded[] = [];
    for (const [label, make] of CASES) {
      const { handler, event, timeoutMs = 60_000, faults: injected = [], before = 0 } = make();
      const customerId = String(event.requestContext.authorizer?.customerId ?? '(none)');
      for (let i = 0; i < before; i++) {
        const earlier = { ...event, requestContext: { ...event.requestContext, requestId: randomUUID() } };
        await handler(earlier, lambdaContext('bytes', earlier.requestContext.requestId, 60_000));
      }
      faults.push(...injected);
      try {
        const result = await handler(event, lambdaContext('bytes', event.requestContext.requestId, timeoutMs));
        const replace = (text: string) =>
          text.replaceAll(event.requestContext.requestId, '<request-id>').replaceAll(customerId, '<customer>');
        answers.push({
          label,
          status: result?.statusCode ?? 0,
          headers: Object.entries(result?.headers ?? {}).map(([name, value]) => [name, replace(String(value))]),
          body: replace(result?.body ?? ''),
        });
      } finally {
        faults.length = 0;
        for (const reject of hanging.splice(0)) reject(new Error('released after the case'));
      }
    }
    await expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot('./__snapshots__/answer-bytes-handlers.txt');
  });
});
