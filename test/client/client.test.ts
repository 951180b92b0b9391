/**
 * The TypeScript client (lib/client/) against scripted answers: what it retries and how long it waits, what it
 * never retries, the Idempotency-Key across retries, the rate-limit state it reads, waiting for quota instead of
 * sending a request certain to be refused, the cap on total wait, timeouts and abort. Clock and sleep are fakes,
 * so waits are asserted, not spent. Against the real API: test/client/client.http.test.ts.
 */
import { assert, describe, expect, it } from 'vitest';
import {
  PetStoreBannedError,
  PetStoreClient,
  type PetStoreClientOptions,
  PetStoreError,
  PetStoreNetworkError,
  PetStoreQuotaError,
  PetStoreResponseError,
} from '../../lib/client/index.js';
import { runPort } from '../support/ports.js';

interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const rateHeaders = (minute: number, day: number, minuteT = 30, dayT = 43_200) => ({
  'X-RateLimit-Limit': '60',
  'X-RateLimit-Remaining': String(Math.min(minute, day)),
  'X-RateLimit-Reset': String(T0 / 1000 + minuteT),
  'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
  RateLimit: `"minute";r=${minute};t=${minuteT}, "day";r=${day};t=${dayT}`,
});
const error = (status: number, code: string, headers: Record<string, string> = {}): Scripted => ({
  status,
  body: { code, message: `scripted ${code}`, status },
  headers: { ...rateHeaders(10, 100), ...headers },
});
const ok = (body: unknown = [], status = 200): Scripted => ({ status, body, headers: rateHeaders(10, 100) });
const category = { id: 7, name: 'Dog' };

/** A client on scripted answers (one per attempt; `Error` entries are thrown as network failures). */
function scripted(answers: (Scripted | Error)[], options: Partial<PetStoreClientOptions> = {}) {
  let now = T0;
  const sent: { url: string; init: RequestInit }[] = [];
  const sleeps: number[] = [];
  const client = new PetStoreClient({
    baseUrl: 'http://api.test/v1/',
    apiKey: 'pet_live_test',
    clock: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
    },
    random: () => 0.5,
    fetch: async (url, init = {}) => {
      sent.push({ url: String(url), init });
      const next = answers.shift();
      if (!next) throw new Error('no more scripted answers');
      if (next instanceof Error) throw next;
      return new Response(next.body === undefined ? '' : JSON.stringify(next.body), {
        status: next.status,
        headers: { 'Content-Type': 'application/json', ...next.headers },
      });
    },
    ...options,
  });
  const headerOf = (i: number, name: string) => new Headers(sent[i]?.init.headers).get(name);
  return { client, sent, sleeps, headerOf, advance: (ms: number) => (now += ms) };
}

describe('the client: typed calls', () => {
  it('sends the key, parses the answer with the server’s schemas, and hands back typed values', async () => {
    const { client, sent, headerOf } = scripted([ok([category])]);
    expect(await client.listCategories()).toEqual([category]);
    expect(sent[0]?.url).toBe('http://api.test/v1/categories');
    expect(headerOf(0, 'authorization')).toBe('Bearer pet_live_test');
  });

  it('an answer the contract does not allow is a PetStoreResponseError', async () => {
    const { client } = scripted([ok([{ id: 'seven', name: 'Dog' }])]);
    await expect(client.listCategories()).rejects.toBeInstanceOf(PetStoreResponseError);
  });
});

describe('the client: what it retries, and after how long', () => {
  it.each([
    ['429 RATE_LIMIT_EXCEEDED', error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '42' }), 42_000],
    ['429 THROTTLED', error(429, 'THROTTLED', { 'Retry-After': '3' }), 3_000],
    ['503 SERVICE_UNAVAILABLE', error(503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '2' }), 2_000],
    ['409 IDEMPOTENCY_IN_PROGRESS', error(409, 'IDEMPOTENCY_IN_PROGRESS', { 'Retry-After': '1' }), 1_000],
  ])('%s: waits exactly Retry-After, then succeeds', async (_what, first, wait) => {
    const { client, sleeps, sent } = scripted([first, ok(category, 201)]);
    expect(await client.createCategory({ name: 'Dog' })).toEqual(category);
    expect(sleeps).toEqual([wait]);
    expect(sent).toHaveLength(2);
  });

  it('without Retry-After (no answer at all), capped exponential backoff with full jitter', async () => {
    const failures = Array.from({ length: 6 }, () => new TypeError('fetch failed'));
    const { client, sleeps } = scripted([...failures, ok()], {
      maxAttempts: 7,
      backoff: { baseMs: 100, capMs: 1_000 },
      random: () => 0.999,
    });
    await client.listCategories();
    // random × min(cap, base × 2^n): 99, 199, 399, 799, then capped at 999.
    expect(sleeps).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it('full jitter spreads the waits between 0 and the exponential bound', async () => {
    const { client, sleeps } = scripted([new TypeError('fetch failed'), new TypeError('fetch failed'), ok()], {
      backoff: { baseMs: 1_000, capMs: 60_000 },
      random: () => 0.25,
    });
    await client.listCategories();
    expect(sleeps).toEqual([250, 500]);
  });

  it.each([
    [400, 'VALIDATION_FAILED'],
    [401, 'UNAUTHORIZED'],
    [409, 'CATEGORY_EXISTS'],
    [413, 'PAYLOAD_TOO_LARGE'],
    [415, 'UNSUPPORTED_MEDIA_TYPE'],
    [422, 'IDEMPOTENCY_KEY_REUSED'],
    [500, 'INTERNAL_ERROR'],
  ])('never retries %i %s: a PetStoreError with the contract’s code', async (status, code) => {
    const { client, sent, sleeps } = scripted([error(status, code), ok(category, 201)]);
    const thrown = await client.createCategory({ name: 'Dog' }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(PetStoreError);
    expect(thrown).toMatchObject({ code, status, attempts: 1 });
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('never retries a ban: PetStoreBannedError says until when, and nothing is sent before then', async () => {
    const { client, sent, advance } = scripted([error(429, 'API_KEY_TEMPORARILY_BANNED', { 'Retry-After': '900' }), ok()]);
    const thrown = await client.listCategories().catch((e: unknown) => e);
    assert.instanceOf(thrown, PetStoreBannedError);
    expect(thrown.until).toEqual(new Date(T0 + 900_000));
    expect(thrown.message).toContain(new Date(T0 + 900_000).toISOString());
    await expect(client.listCategories()).rejects.toBeInstanceOf(PetStoreBannedError);
    expect(sent).toHaveLength(1);
    advance(900_000);
    await client.listCategories();
    expect(sent).toHaveLength(2);
  });

  it('gives up after maxAttempts with the last error, its attempts counted', async () => {
    const busy = () => error(503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '1' });
    const { client, sent } = scripted([busy(), busy(), busy()], { maxAttempts: 3 });
    await expect(client.listCategories()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', attempts: 3 });
    expect(sent).toHaveLength(3);
  });

  it('never waits longer in total than the caller allows: the error comes at once instead', async () => {
    const { client, sleeps } = scripted([error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '3600' })], { maxTotalWaitMs: 60_000 });
    await expect(client.listCategories()).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryAfterMs: 3_600_000 });
    expect(sleeps).toEqual([]);
  });
});

describe('the client: Idempotency-Key', () => {
  it('sends one on every create, the same across its retries, a new one per create', async () => {
    const keys = ['key-1', 'key-2'];
    const { client, headerOf } = scripted(
      [new TypeError('fetch failed'), error(503, 'SERVICE_UNAVAILABLE'), ok(category, 201), ok(category, 201)],
      {
        newIdempotencyKey: () => keys.shift() ?? 'none',
      },
    );
    await client.createCategory({ name: 'Dog' });
    await client.createCategory({ name: 'Cat' });
    expect([0, 1, 2, 3].map((i) => headerOf(i, 'idempotency-key'))).toEqual(['key-1', 'key-1', 'key-1', 'key-2']);
  });

  it('takes the caller’s key, and by default makes a UUID', async () => {
    const { client, headerOf } = scripted([ok(category, 201), ok(category, 201)]);
    await client.createCategory({ name: 'Dog' }, { idempotencyKey: 'order-42' });
    await client.createCategory({ name: 'Dog' });
    expect(headerOf(0, 'idempotency-key')).toBe('order-42');
    expect(headerOf(1, 'idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a replayed error says so', async () => {
    const { client } = scripted([error(409, 'CATEGORY_EXISTS', { 'Idempotent-Replayed': 'true' })]);
    await expect(client.createCategory({ name: 'Dog' })).rejects.toMatchObject({ code: 'CATEGORY_EXISTS', replayed: true });
  });
});

describe('the client: rate-limit state and waiting for quota', () => {
  it('exposes both windows from RateLimit/RateLimit-Policy and the tightest from X-RateLimit-*', async () => {
    const { client } = scripted([{ status: 200, body: [], headers: rateHeaders(59, 999, 45, 41_000) }]);
    await client.listCategories();
    expect(client.rateLimit).toMatchObject({
      minute: { limit: 60, remaining: 59, resetAt: T0 + 45_000, windowSeconds: 60 },
      day: { limit: 1000, remaining: 999, resetAt: T0 + 41_000_000, windowSeconds: 86_400 },
      tightest: { limit: 60, remaining: 59, reset: T0 / 1000 + 45 },
    });
  });

  it('ignores the placeholder headers of an answer without a customer (401: all 0)', async () => {
    const { client } = scripted([
      ok(),
      error(401, 'UNAUTHORIZED', { 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '0' }),
    ]);
    await client.listCategories();
    await client.listCategories().catch(() => undefined);
    expect(client.rateLimit.minute?.remaining).toBe(10);
  });

  it('waits for a used-up window to reset instead of sending a request certain to be refused', async () => {
    const { client, sent, sleeps } = scripted([{ status: 200, body: [], headers: rateHeaders(0, 500, 20) }, ok()]);
    await client.listCategories();
    await client.listCategories();
    expect(sleeps).toEqual([20_000]);
    expect(sent).toHaveLength(2);
  });

  it('getRateLimitStatus counts nothing, so it is sent even then', async () => {
    const status = {
      customerId: 'c',
      plan: 'free',
      minute: { limit: 60, remaining: 0, reset: T0 / 1000 + 20 },
      day: { limit: 1000, remaining: 500, reset: T0 / 1000 + 43_200 },
      ban: { active: false, until: null },
    };
    const { client, sleeps } = scripted([
      { status: 200, body: [], headers: rateHeaders(0, 500, 20) },
      { status: 200, body: status, headers: rateHeaders(0, 500, 20) },
    ]);
    await client.listCategories();
    expect(await client.getRateLimitStatus()).toEqual(status);
    expect(sleeps).toEqual([]);
  });

  it('with waitForQuota off, or a wait beyond the cap, throws PetStoreQuotaError without sending', async () => {
    for (const options of [{ waitForQuota: false }, { maxTotalWaitMs: 10_000 }]) {
      const { client, sent } = scripted([{ status: 200, body: [], headers: rateHeaders(0, 500, 20) }], options);
      await client.listCategories();
      const thrown = await client.listCategories().catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(PetStoreQuotaError);
      expect(thrown).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429, sent: false, resetAt: new Date(T0 + 20_000) });
      expect(sent).toHaveLength(1);
    }
  });
});

describe('the client: timeouts and abort', () => {
  it('abandons an attempt after attemptTimeoutMs as a PetStoreNetworkError, and retries it', async () => {
    let calls = 0;
    const { client } = scripted([], {
      attemptTimeoutMs: 50,
      fetch: (_url, init) => {
        calls++;
        if (calls === 2) return Promise.resolve(new Response('[]', { status: 200 }));
        return new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
      },
    });
    await client.listCategories();
    expect(calls).toBe(2);
    const { client: impatient } = scripted([], {
      attemptTimeoutMs: 20,
      maxAttempts: 1,
      fetch: (_url, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
    });
    const thrown = await impatient.listCategories().catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(PetStoreNetworkError);
    expect(thrown).toMatchObject({ timedOut: true });
  });

  it('an abort signal stops the call, during an attempt or a wait', async () => {
    const controller = new AbortController();
    const { client, sent } = scripted([error(503, 'SERVICE_UNAVAILABLE', { 'Retry-After': '5' }), ok()], {
      sleep: (_ms, signal) => {
        controller.abort(new Error('caller gave up'));
        return Promise.reject(signal?.reason);
      },
    });
    await expect(client.listCategories({ signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(sent).toHaveLength(1);
    await expect(client.listCategories({ signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(sent).toHaveLength(1);
  });
});

describe('the client: no answer at all', () => {
  it('names the URL and the cause of a refused connection, not only "fetch failed"', async () => {
    const port = await runPort();
    const client = new PetStoreClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'pet_live_x', maxAttempts: 1 });
    const thrown = await client.listCategories().catch((e: unknown) => e);
    assert.instanceOf(thrown, PetStoreNetworkError);
    expect(thrown.code).toBe('ECONNREFUSED');
    expect(thrown.message).toBe(`No answer from GET http://127.0.0.1:${port}/v1/categories: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
