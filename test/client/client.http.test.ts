/**
 * The TypeScript client against the local gateway: a Free key hammered for 90 seconds is admitted exactly its
 * plan's count, never banned, and sends nothing certain to be refused; a create whose first answer is lost on the
 * way back creates one category and returns it; typed values and typed errors from the real API. The server's
 * clock (lib/clock.ts) and the client's clock and sleep are one fake, so 90 seconds take a few real ones. Every
 * answer the client gets is also held to openapi.json.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PetStoreClient, type PetStoreClientOptions, PetStoreError } from '../../lib/client/index.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { answerOfResponse } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { makeCustomer, testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { useGateway } from '../support/http.js';
import { listen } from '../support/listen.js';
import { expectConformsToOpenApi } from '../support/openapi-conformance.js';

const { url, customer } = useGateway();
const table = () => categoryIntegrity(testDb, testTable('CATEGORIES_TABLE'));
afterEach(() => resetClock());

/** fetch, with every answer checked against openapi.json (the body is read from a clone). */
const conformingFetch =
  (base: () => string): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    const path = String(input).slice(base().length);
    await expectConformsToOpenApi(init?.method ?? 'GET', path, await answerOfResponse(response.clone()));
    return response;
  };

const client = (options: Partial<PetStoreClientOptions> = {}) =>
  new PetStoreClient({ baseUrl: url(), apiKey: customer().apiKey, fetch: conformingFetch(url), ...options });

describe('a client hammering a Free key for 90 seconds', () => {
  it('is admitted exactly the plan’s count (60 a minute), is never banned, and sends nothing certain to be refused', async () => {
    const free = await makeCustomer('free');
    // A minute boundary, far from the day's end: 90 seconds span two minute windows, so 60 + 60 are admitted.
    const start = Date.UTC(2031, 2, 4, 5, 6, 0);
    const deadline = start + 90_000;
    let now = start;
    setClock(() => now);
    const stop = new Error('90 seconds are up');
    const statuses: number[] = [];
    const hammer = new PetStoreClient({
      baseUrl: url(),
      apiKey: free.apiKey,
      clock: () => now,
      // Waiting is time passing; a wait that would end after the 90 seconds ends the run instead.
      sleep: async (ms) => {
        if (now + ms >= deadline) throw stop;
        now += ms;
      },
      random: () => 0.5,
      maxTotalWaitMs: 120_000,
      fetch: async (input, init) => {
        const response = await conformingFetch(url)(input, init);
        statuses.push(response.status);
        now += 100; // each request takes 100 ms: as fast as one connection goes
        return response;
      },
    });

    let calls = 0;
    while (now < deadline) {
      try {
        await hammer.listCategories();
        calls++;
      } catch (error) {
        if (error === stop) break;
        throw error;
      }
    }

    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses).toHaveLength(120); // every request sent was admitted: none was certain to be refused
    expect(calls).toBe(120);
    const status = await hammer.getRateLimitStatus();
    expect(status).toMatchObject({ plan: 'free', ban: { active: false, until: null } });
    expect(status.minute).toMatchObject({ limit: 60, remaining: 0 });
    expect(status.day).toMatchObject({ limit: 1000, remaining: 880 });
    expect(hammer.rateLimit.minute).toMatchObject({ limit: 60, remaining: 0 });
  });
});

describe('a create whose first answer is lost', () => {
  let proxy: Server | undefined;
  afterAll(() => proxy?.close());

  it('is retried with the same Idempotency-Key and creates exactly one category, which it returns', async () => {
    const seen: { key: string | undefined; upstreamStatus: number }[] = [];
    let dropped = false;
    // Forwards to the gateway; the first POST's answer is read in full (the category is stored) and then the
    // connection is cut instead of answering, as a dropped network path would.
    proxy = createServer((req, res) => {
      const target = new URL(url());
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const key = req.headers['idempotency-key'];
            seen.push({ key: Array.isArray(key) ? key[0] : key, upstreamStatus: answer.statusCode ?? 0 });
            if (req.method === 'POST' && !dropped) {
              dropped = true;
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(chunks));
          });
        },
      );
      req.pipe(upstream);
    });
    const proxyUrl = `http://127.0.0.1:${await listen(proxy)}/v1`;

    const sleeps: number[] = [];
    const retrying = new PetStoreClient({
      baseUrl: proxyUrl,
      apiKey: customer().apiKey,
      fetch: conformingFetch(() => proxyUrl),
      sleep: async (ms) => void sleeps.push(ms),
    });
    const name = `Lost answer ${randomUUID().slice(0, 8)}`;
    const before = await table();

    const created = await retrying.createCategory({ name, description: 'sent twice, stored once' });

    expect(seen).toHaveLength(2);
    expect(seen[0]?.upstreamStatus).toBe(201); // the server stored it; the client never saw that answer
    expect(seen[1]?.key).toBe(seen[0]?.key);
    expect(seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sleeps).toHaveLength(1); // one backoff before the retry
    const after = await table();
    const stored = after.categories.filter((c) => c.name === name);
    expect(stored).toEqual([created]);
    expect(after.lastId).toBe(before.lastId + 1);
  });
});

describe('the client against the API', () => {
  beforeAll(() => resetClock());

  it('lists, creates and reads the rate-limit status with the types of the server’s schemas', async () => {
    const api = client();
    const created = await api.createCategory({ name: `  Typed ${randomUUID().slice(0, 8)} `, description: 'from the client' });
    expect(created).toEqual({ id: expect.any(Number), name: created.name.trim(), description: 'from the client' });
    expect(await api.listCategories()).toContainEqual(created);
    const status = await api.getRateLimitStatus();
    expect(status.customerId).toBe(customer().customerId);
    expect(api.rateLimit.minute?.limit).toBe(status.minute.limit);
    expect(api.rateLimit.day?.limit).toBe(status.day.limit);
  });

  it('throws the contract’s code: 409 CATEGORY_EXISTS, not retried; 401 UNAUTHORIZED for a bad key', async () => {
    const api = client();
    const name = `Twice ${randomUUID().slice(0, 8)}`;
    await api.createCategory({ name });
    await expect(api.createCategory({ name })).rejects.toMatchObject({ code: 'CATEGORY_EXISTS', status: 409, attempts: 1 });
    const stranger = client({ apiKey: 'pet_live_000000000000000000000000000000000000' });
    const thrown = await stranger.listCategories().catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(PetStoreError);
    expect(thrown).toMatchObject({ code: 'UNAUTHORIZED', status: 401, attempts: 1 });
  });
});
