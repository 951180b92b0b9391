/**
 * The request path (lib/http/pipeline.ts) through the real Middy chain of `operation()` against DynamoDB Local, part
 * by part: the one error module (to-http-error.ts) that turns every error into the contract's code, `finish`
 * (finish.ts) that puts every header on every answer once and in one order, and the pipeline's order: caller →
 * admission (with the operation alongside where the route only reads, `prepare` before it) → input → handler →
 * finish. Probe routes defined here exercise each branch; the answers of the real routes are held byte for byte in
 * answer-bytes.http.test.ts.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../infra/local/events.js';
import { CategorySchema, NewCategorySchema } from '../../lib/categories/schema.js';
import { CategoryContention, CategoryExists, CategoryLimitReached } from '../../lib/categories/store.js';
import { setClock } from '../../lib/clock.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { HttpError } from '../../lib/http/error-codes.js';
import { jsonBody } from '../../lib/http/json-body.js';
import { operation } from '../../lib/http/operation.js';
import type { Result } from '../../lib/http/response.js';
import { type IdempotentRequest, type IdempotentRunner, idempotencyKeyOf } from '../../lib/idempotency/key.js';
import { defineRoute } from '../../lib/routes/definition.js';
import { sentHeaders } from '../support/answer.js';
import { invoke, proxyEvent, TEST_AUTHORIZER } from '../support/events.js';

/** Reads only: runs alongside admission. Beta, so its answers carry a route header too. */
const probeRead = defineRoute({
  operationId: 'probeRead',
  method: 'GET',
  path: '/probe',
  handler: 'probe-read',
  summary: 'A probe that reads',
  tag: 'Store',
  stability: 'beta',
  quota: 'consume',
  runsBeforeAdmission: true,
  tables: { counters: 'write' },
  success: { status: 200, description: 'ok', schema: v.object({ ok: v.boolean() }) },
  errors: [],
});

/** Writes, takes a body and an Idempotency-Key: waits for admission. */
const probeWrite = defineRoute({
  operationId: 'probeWrite',
  method: 'POST',
  path: '/probe',
  handler: 'probe-write',
  summary: 'A probe that writes',
  tag: 'Store',
  stability: 'stable',
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { counters: 'write', idempotency: 'write' },
  idempotent: true,
  body: NewCategorySchema,
  success: { status: 201, description: 'created', schema: CategorySchema },
  errors: ['CATEGORY_EXISTS'],
});

/** probeWrite, with a body schema that says when it ran. */
const probeTraced = defineRoute({
  ...probeWrite,
  operationId: 'probeTraced',
  body: v.pipe(
    NewCategorySchema,
    v.check(() => trace.steps.push('body read') > 0),
  ),
});

/**
 * What happened, in order: the count's DynamoDB call, the decision's metric, and the probes' own steps. A test that
 * shows a step runs while the count is in flight names it in `countAwaits`: the count is held until that step has
 * happened, so the order shows whatever the machine's load, and a step that never comes alongside fails the count.
 */
const trace = vi.hoisted(() => {
  const state: { steps: string[]; countAwaits?: string | undefined } = { steps: [] };
  return state;
});
/** Resolves once `step` is in the trace; rejects if it has not happened within a few seconds. */
const stepSeen = (step: string) => vi.waitFor(() => expect(trace.steps).toContain(step), { timeout: 5_000, interval: 5 });
vi.mock('../../lib/metrics.js', () => ({ recordDecision: () => trace.steps.push('metric') }));
/**
 * One instant mid-minute, in the future (DynamoDB Local applies the counters' TTL): customers of 1 or 2 a minute are
 * refused on their second or third call however slowly the calls come, with no minute's end between them.
 */
setClock(() => Date.UTC(2036, 2, 10, 12, 34, 30));
const customer = (perMinute = 500) => ({ ...TEST_AUTHORIZER, customerId: `path-${randomUUID()}`, perMinute: String(perMinute) });
const get = (authorizer: Record<string, string> | null = customer()) => proxyEvent({ path: '/probe', authorizer });
const post = (body: string, authorizer: Record<string, string> = customer(), key?: string) => {
  const headers: [string, string][] = [['Content-Type', 'application/json']];
  if (key) headers.push(['Idempotency-Key', key]);
  return proxyEvent({ method: 'POST', path: '/probe', body, authorizer, headers });
};

beforeAll(() => {
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      // The count is the conditional write that admits, the one that compares with the plan's limit (`:perMinute`).
      // Refusals are counted toward a ban in batches, by conditional writes of their own to the same table, up to a
      // second later, so an earlier test's can arrive during another's: those are not the count.
      const values = 'ExpressionAttributeValues' in args.input ? args.input.ExpressionAttributeValues : undefined;
      const counting =
        context.commandName === 'UpdateItemCommand' &&
        'TableName' in args.input &&
        args.input.TableName === process.env.COUNTERS_TABLE &&
        typeof values === 'object' &&
        values !== null &&
        ':perMinute' in values;
      if (counting) trace.steps.push('count sent');
      if (counting && trace.countAwaits) await stepSeen(trace.countAwaits);
      try {
        return await next(args);
      } finally {
        if (counting) trace.steps.push('count answered');
      }
    },
    { step: 'initialize', name: 'requestPathSteps' },
  );
});
beforeEach(() => {
  trace.steps = [];
  trace.countAwaits = undefined;
});

/** A runner that records what it is handed and runs the operation, as the idempotency utility does the first time. */
function recordingRunner() {
  const seen: { request?: IdempotentRequest; result?: Result; error?: unknown } = {};
  const runner: IdempotentRunner = Object.assign(
    async (request: IdempotentRequest, _context: unknown, run: () => Promise<Result>) => {
      seen.request = request;
      try {
        seen.result = await run();
        return seen.result;
      } catch (error) {
        seen.error = error;
        throw error;
      }
    },
    { keyOf: idempotencyKeyOf },
  );
  return { runner, seen };
}

describe('the one error module (to-http-error.ts): what a handler throws becomes the contract’s answer', () => {
  it.each<[string, unknown, number, string, Record<string, string>]>([
    ['an HttpError, as it is', new HttpError('NOT_IMPLEMENTED', 'later'), 501, 'NOT_IMPLEMENTED', {}],
    ['CategoryExists', new CategoryExists('taken'), 409, 'CATEGORY_EXISTS', {}],
    ['CategoryLimitReached', new CategoryLimitReached('full'), 409, 'CATEGORY_LIMIT_REACHED', {}],
    ['CategoryContention', new CategoryContention('busy'), 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '1' }],
    [
      'DynamoDB throttling',
      Object.assign(new Error('slow down'), { name: 'ThrottlingException' }),
      503,
      'SERVICE_UNAVAILABLE',
      { 'Retry-After': '2' },
    ],
    [
      'Middy’s timeout',
      Object.assign(new Error('[AbortError]'), { name: 'TimeoutError' }),
      503,
      'SERVICE_UNAVAILABLE',
      { 'Retry-After': '2' },
    ],
  ])('%s', async (_what, thrown, status, code, headers) => {
    const answer = await invoke(
      operation(probeRead, async () => Promise.reject(thrown)),
      get(),
    );
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ code, message: expect.any(String), status });
    expect(sentHeaders(answer)).toMatchObject(headers);
  });

  it('anything else is 500 INTERNAL_ERROR quoting the request id, with nothing of the error in it', async () => {
    const event = get();
    const answer = await invoke(
      operation(probeRead, async () => Promise.reject(new TypeError(`no table ${process.env.COUNTERS_TABLE}`))),
      event,
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ code: 'INTERNAL_ERROR', message: expect.stringContaining(event.requestContext.requestId), status: 500 });
    expect(JSON.stringify(answer.body)).not.toMatch(/TypeError|table/);
  });
});

describe('finish (finish.ts): every header on every answer, once, in one order', () => {
  const names = (headers: Record<string, string>) => Object.keys(headers);
  const admitted = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Content-Type'];
  const tail = ['RateLimit-Policy', 'RateLimit', 'Cache-Control', 'X-Content-Type-Options', 'X-API-Stability', 'X-Request-Id'];

  it('a success: the customer’s rate-limit headers, the type, the IETF fields, the common ones, the route’s, the id', async () => {
    const answer = await invoke(
      operation(probeRead, async () => ({ ok: true })),
      get(),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true });
    expect(answer.headerNames).toEqual([...admitted, ...tail]);
    expect(answer.headers.get('X-API-Stability')).toBe('beta');
  });

  it('an error’s own headers come after the Content-Type, a refusal’s Retry-After too', async () => {
    const authorizer = customer(1);
    const handler = operation(probeRead, async () => ({ ok: true }));
    await invoke(handler, get(authorizer));
    const refused = await invoke(handler, get(authorizer));
    expect(refused.status).toBe(429);
    expect(refused.headerNames).toEqual([...admitted, 'Retry-After', ...tail]);
    expect(refused.headers.get('X-RateLimit-Remaining')).toBe('0');
  });

  it('before the caller is known: the gateway’s 0/0/0 and no IETF fields', async () => {
    const answer = await invoke(
      operation(probeRead, async () => ({ ok: true })),
      get(null),
    );
    expect(answer.status).toBe(401);
    expect(answer.headerNames).toEqual([
      ...admitted,
      'WWW-Authenticate',
      'Cache-Control',
      'X-Content-Type-Options',
      'X-API-Stability',
      'X-Request-Id',
    ]);
    const { headers } = answer;
    expect([headers.get('X-RateLimit-Limit'), headers.get('X-RateLimit-Remaining'), headers.get('X-RateLimit-Reset')]).toEqual([
      '0',
      '0',
      '0',
    ]);
  });

  it('a result’s own header (a replay’s Idempotent-Replayed) in the same place', async () => {
    const replaying: IdempotentRunner = Object.assign(
      async () => ({
        status: 201,
        body: { id: 1, name: 'Dog' },
        headers: { 'Idempotent-Replayed': 'true' },
      }),
      { keyOf: idempotencyKeyOf },
    );
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async () => ({ id: 2, name: 'never' }),
      idempotency: replaying,
    });
    const answer = await invoke(handler, post('{"name":"Dog"}', customer(), 'k'));
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ id: 1, name: 'Dog' });
    expect(answer.headerNames).toEqual([...admitted, 'Idempotent-Replayed', ...tail.filter((name) => name !== 'X-API-Stability')]);
  });

  it('Middy’s timeout answer, through the same finish, keeps the rate-limit headers of the admitted request', async () => {
    const handler = operation(probeRead, () => new Promise(() => undefined));
    const event = get();
    const result = await handler(event, lambdaContext('probe', event.requestContext.requestId, 700));
    expect(result?.statusCode).toBe(503);
    expect(names(result?.headers ?? {})).toEqual([...admitted, 'Retry-After', ...tail]);
    expect(result?.headers['X-RateLimit-Remaining']).toMatch(/^\d+$/);
    expect(result?.headers['X-RateLimit-Limit']).toBe('500');
  });
});

describe('the pipeline (pipeline.ts): caller → admission → input → handler → finish', () => {
  it('a route that writes runs its handler after admission; prepare starts before the count is sent', async () => {
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => {
        trace.steps.push('handler');
        return { id: 1, name: body.name };
      },
      prepare: () => trace.steps.push('prepare'),
      idempotency: recordingRunner().runner,
    });
    expect((await invoke(handler, post('{"name":"Dog"}'))).status).toBe(201);
    expect(trace.steps).toEqual(['prepare', 'count sent', 'count answered', 'metric', 'handler']);
  });

  it('a route that only reads runs its handler while the count is in flight; a refusal wins over its answer', async () => {
    const authorizer = customer(1);
    const handler = operation(probeRead, async () => {
      trace.steps.push('handler');
      return { ok: true };
    });
    trace.countAwaits = 'handler';
    expect((await invoke(handler, get(authorizer))).status).toBe(200);
    expect(trace.steps.indexOf('handler')).toBeLessThan(trace.steps.indexOf('count answered'));
    trace.steps = [];
    const refused = await invoke(handler, get(authorizer));
    expect(refused.status).toBe(429);
    expect(trace.steps).toContain('handler');
    // Now the instance knows: the handler waits, and is not run at all.
    trace.steps = [];
    trace.countAwaits = undefined;
    expect((await invoke(handler, get(authorizer))).status).toBe(429);
    expect(trace.steps).not.toContain('handler');
  });

  it('the body is read and checked once, and its refusal is answered after admission', async () => {
    const handler = operation(probeTraced, {
      readBody: jsonBody,
      handle: async ({ body }) => ({ id: 1, name: body.name }),
      idempotency: recordingRunner().runner,
    });
    expect((await invoke(handler, post('{"name":"Dog"}'))).status).toBe(201);
    // Where the read falls against the count is not pinned: it saves no round trip (docs/performance.md).
    expect([...trace.steps].sort()).toEqual(['body read', 'count answered', 'count sent', 'metric']);
    trace.steps = [];
    // This body fails the schema's own check, before the step that says it was read.
    const refused = await invoke(handler, post('{"name":"Dog","colour":"red"}'));
    expect(refused.status).toBe(400);
    // Counted, with its metric (the schema's check of the field came first, so the probe's own check did not run).
    expect(refused.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/);
    expect(trace.steps).toEqual(['count sent', 'count answered', 'metric']);
  });

  it('a request with a key has the runner prepare while the count is in flight', async () => {
    trace.countAwaits = 'runner prepared';
    const { runner } = recordingRunner();
    runner.prepare = () => trace.steps.push('runner prepared');
    const handler = operation(probeTraced, {
      readBody: jsonBody,
      handle: async ({ body }) => ({ id: 1, name: body.name }),
      idempotency: runner,
    });
    expect((await invoke(handler, post('{"name":"Dog"}', customer(), 'key-prepared'))).status).toBe(201);
    const at = (step: string) => trace.steps.indexOf(step);
    expect(at('count sent')).toBeLessThan(at('runner prepared'));
    expect(at('runner prepared')).toBeLessThan(at('count answered'));
    expect(trace.steps).toContain('body read');
    // Without a key, or with a key refused, the runner has nothing to prepare for.
    trace.steps = [];
    trace.countAwaits = undefined;
    expect((await invoke(handler, post('{"name":"Dog"}'))).status).toBe(201);
    expect((await invoke(handler, post('{"name":"Dog"}', customer(), 'bad key\u0007'))).status).toBe(400);
    expect(trace.steps).not.toContain('runner prepared');
  });

  it('the decision’s metric is written once per counted request, admitted or refused, by the time it is answered', async () => {
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => ({ id: 1, name: body.name }),
      idempotency: recordingRunner().runner,
    });
    const authorizer = customer(1);
    expect((await invoke(handler, post('{"name":"Dog"}', authorizer))).status).toBe(201);
    expect(trace.steps.filter((step) => step === 'metric')).toEqual(['metric']);
    trace.steps = [];
    expect((await invoke(handler, post('{"name":"Dog"}', authorizer))).status).toBe(429);
    expect(trace.steps.filter((step) => step === 'metric')).toEqual(['metric']);
  });

  it('a request without a caller is answered 401 before anything is counted', async () => {
    const handler = operation(probeRead, async () => ({ ok: true }));
    expect((await invoke(handler, get(null))).status).toBe(401);
    expect(trace.steps).toEqual([]);
  });

  it('a bad body is answered after admission, so it counts; once refused, a bad body is 429', async () => {
    const authorizer = customer(2);
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => ({ id: 1, name: body.name }),
      idempotency: recordingRunner().runner,
    });
    const first = await invoke(handler, post('{"name":', authorizer));
    expect([first.status, first.headers.get('X-RateLimit-Remaining')]).toEqual([400, '1']);
    const second = await invoke(handler, post('{"colour":"red"}', authorizer));
    expect([second.status, second.headers.get('X-RateLimit-Remaining')]).toEqual([400, '0']);
    expect((await invoke(handler, post('{"name":', authorizer))).body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('the body is parsed by @middy/http-json-body-parser in the Middy chain, on the request itself, not on a copy', async () => {
    let given: unknown;
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => {
        given = body;
        return { id: 1, name: body.name };
      },
      idempotency: recordingRunner().runner,
    });
    const event = post(Buffer.from('{"name":"Dog"}').toString('base64'));
    event.isBase64Encoded = true;
    expect((await invoke(handler, event)).status).toBe(201);
    // The raw checks decoded the bytes into the event's body; the parser replaced the text with its value.
    expect([event.body, event.isBase64Encoded]).toEqual([{ name: 'Dog' }, false]);
    expect(given).toEqual({ name: 'Dog' });
  });

  it('a body the middlewares refuse is answered by the request path, in its order: 401 without a caller, else counted', async () => {
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => ({ id: 1, name: body.name }),
      idempotency: recordingRunner().runner,
    });
    const anonymous = proxyEvent({
      method: 'POST',
      path: '/probe',
      body: '{"name":',
      authorizer: null,
      headers: { 'Content-Type': 'application/json' },
    });
    expect((await invoke(handler, anonymous)).status).toBe(401);
    expect(trace.steps).toEqual([]);
    // A bad key is answered before the body the parser refused, as the key is read first.
    const keyed = await invoke(handler, post('{"name":', customer(), 'bad key\u0007'));
    expect(keyed.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/^"Idempotency-Key"/) });
    expect(trace.steps).toEqual(['count sent', 'count answered', 'metric']);
  });

  it('a body holding __proto__ (which the JSON parser refuses) is checked by the schema like any unknown field', async () => {
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => ({ id: 1, name: body.name }),
      idempotency: recordingRunner().runner,
    });
    const proto = await invoke(handler, post('{"name":"Dog","__proto__":{"admin":true}}'));
    expect(proto.body).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'Unknown field "__proto__": a NewCategory has only "name" and "description"',
      status: 400,
    });
    const withConstructor = await invoke(handler, post('{"name":"Dog","constructor":{"prototype":{}}}'));
    expect(withConstructor.body).toMatchObject({ message: expect.stringMatching(/^Unknown field "constructor"/) });
    expect(Object.prototype).not.toHaveProperty('admin');
  });

  it('the runner gets the JSON as sent (the fingerprint), the handler the schema’s output; without a key no runner', async () => {
    const { runner, seen } = recordingRunner();
    let given: unknown;
    const handler = operation(probeWrite, {
      readBody: jsonBody,
      handle: async ({ body }) => {
        given = body;
        return { id: 3, name: body.name };
      },
      idempotency: runner,
    });
    const answer = await invoke(handler, post('{ "name" : "  Dog  " }', customer(), 'key-1'));
    expect(answer.status).toBe(201);
    expect(seen.request).toMatchObject({ key: 'key-1', body: { name: '  Dog  ' } });
    expect(given).toEqual({ name: 'Dog' });
    expect(seen.result).toEqual({ status: 201, body: { id: 3, name: 'Dog' }, headers: {} });

    seen.request = undefined;
    expect((await invoke(handler, post('{"name":"Cat"}'))).status).toBe(201);
    expect(seen.request).toBeUndefined();
  });

  it('what the handler throws becomes its result in the one error function, 4xx and 5xx alike (the runner keeps no 5xx: test/categories/idempotency.test.ts)', async () => {
    const taken = recordingRunner();
    const refusing = operation(probeWrite, {
      readBody: jsonBody,
      handle: () => Promise.reject(new CategoryExists('taken')),
      idempotency: taken.runner,
    });
    expect((await invoke(refusing, post('{"name":"Dog"}', customer(), 'k'))).status).toBe(409);
    expect(taken.seen.result).toEqual({ status: 409, body: { code: 'CATEGORY_EXISTS', message: 'taken', status: 409 }, headers: {} });

    const broken = recordingRunner();
    const failing = operation(probeWrite, {
      readBody: jsonBody,
      handle: () => Promise.reject(new TypeError('boom')),
      idempotency: broken.runner,
    });
    expect((await invoke(failing, post('{"name":"Dog"}', customer(), 'k'))).status).toBe(500);
    expect(broken.seen.result).toMatchObject({ status: 500, body: { code: 'INTERNAL_ERROR' } });
    expect(broken.seen.error).toBeUndefined();
  });
});
