/**
 * GET /rate-limit stays free but bounded: through the real Middy chains of getRateLimitStatus and listCategories in
 * one instance (newInstance: the instance's own modules, clients and rate limiter, on the test's clock), with every
 * DynamoDB call of the instance counted. At most one read per customer per second; between reads the answer is
 * exact for the one instance that serves the customer (its admissions are counted in), an upper bound with several;
 * during a ban it is answered from memory without a call, but for the one check every BAN_RECHECK_MS.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import { BAN_RECHECK_MS } from '../../lib/rate-limit/refusal-cache.js';
import { RateLimitStatusSchema } from '../../lib/rate-limit/schema.js';
import { STATUS_READ_INTERVAL_MS } from '../../lib/rate-limit/status-memory.js';
import { storedCounts } from '../support/counters.js';
import { type CallRecorder, isRefusalCount, newInstance } from '../support/dynamo-calls.js';
import { invoke, proxyEvent } from '../support/events.js';

/** 2036-03-10 12:34:00 UTC, a minute start in the future (DynamoDB Local applies the TTL). */
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
let now = T0;

/** A Lambda instance serving both operations (as the local gateway's one process does). */
const newServer = () =>
  newInstance(
    async () => ({
      status: (await import('../../functions/get-rate-limit-status.js')).handler,
      list: (await import('../../functions/list-categories.js')).handler,
    }),
    () => now,
  );
type Server = Awaited<ReturnType<typeof newServer>>;
let server: Server;

beforeEach(async () => {
  now = T0;
  server = await newServer();
});

function customer(limits: { perMinute: number; perDay: number }) {
  const customerId = `status-${randomUUID().slice(0, 8)}`;
  const authorizer = {
    principalId: customerId,
    customerId,
    keyId: 'key_0000000000000000',
    plan: 'enterprise',
    perMinute: String(limits.perMinute),
    perDay: String(limits.perDay),
  };
  return {
    customerId,
    limits,
    status: async (on: Server = server) => {
      const answer = await invoke(on.status, proxyEvent({ path: '/rate-limit', authorizer }));
      expect(answer.status).toBe(200);
      return { ...v.parse(RateLimitStatusSchema, answer.body), headers: answer.headers };
    },
    list: async (on: Server = server) => (await invoke(on.list, proxyEvent({ authorizer }))).status,
  };
}

/** The reads of a customer's counters an instance made since the last look, by command. */
const reads = (recorder: CallRecorder) =>
  recorder
    .take()
    .filter((c) => ['GetItemCommand', 'BatchGetItemCommand'].includes(c.command))
    .map((c) => c.command);

describe('GET /rate-limit, not banned: at most one read per customer per second per instance', () => {
  it('reads once, answers from memory within the second with the admissions it made counted in, and reads again after', async () => {
    const c = customer({ perMinute: 50, perDay: 1_000 });
    now = T0 + 100;
    expect((await c.status()).minute).toEqual({ limit: 50, remaining: 50, reset: T0 / 1000 + 60 });
    expect(reads(server.calls)).toEqual(['GetItemCommand']);

    for (let i = 0; i < 3; i++) expect(await c.list()).toBe(200);
    now = T0 + 500;
    const between = await c.status();
    expect(reads(server.calls)).toEqual([]);
    // Exact: what DynamoDB holds.
    const stored = await storedCounts(c.customerId, now);
    expect([between.minute.remaining, between.day.remaining]).toEqual([50 - stored.minute, 1_000 - stored.day]);
    expect(between.minute.remaining).toBe(47);
    expect(between.headers.get('X-RateLimit-Remaining')).toBe('47');

    for (const at of [600, 700, 800, 900, 1_099]) {
      now = T0 + at;
      expect((await c.status()).minute.remaining).toBe(47);
    }
    expect(reads(server.calls)).toEqual([]);

    now = T0 + 100 + STATUS_READ_INTERVAL_MS;
    const reread = await c.status();
    expect(reads(server.calls)).toEqual(['GetItemCommand']);
    expect([reread.minute, reread.day]).toEqual([between.minute, between.day]);
  });

  it('shares one read among concurrent requests', async () => {
    const c = customer({ perMinute: 50, perDay: 1_000 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.status()));
    expect(new Set(answers.map((a) => a.minute.remaining))).toEqual(new Set([50]));
    expect(reads(server.calls)).toEqual(['GetItemCommand']);
  });

  it('moves a window that ended since the read on to the next, without a read', async () => {
    const c = customer({ perMinute: 50, perDay: 1_000 });
    now = T0 + 59_500;
    await c.list();
    await c.list();
    expect((await c.status()).minute.remaining).toBe(48);
    server.calls.take();
    now = T0 + 60_200;
    const next = await c.status();
    expect(reads(server.calls)).toEqual([]);
    expect(next.minute).toEqual({ limit: 50, remaining: 50, reset: T0 / 1000 + 120 });
    expect(next.day.remaining).toBe(998);
  });

  it('with another instance admitting too, is an upper bound until its next read, then exact', async () => {
    const c = customer({ perMinute: 50, perDay: 1_000 });
    const other = await newServer();
    now = T0 + 100;
    await c.status();
    expect(reads(server.calls)).toEqual(['GetItemCommand']);
    for (let i = 0; i < 4; i++) expect(await c.list(other)).toBe(200);
    now = T0 + 900;
    const bound = await c.status();
    expect(reads(server.calls)).toEqual([]);
    // What this instance last read: never less than what is left, but not yet the other instance's 4.
    expect(bound.minute.remaining).toBe(50);
    expect(bound.minute.remaining).toBeGreaterThanOrEqual(50 - (await storedCounts(c.customerId, now)).minute);
    now = T0 + 1_100;
    expect((await c.status()).minute.remaining).toBe(46);
  });

  it('reads a sharded customer with one BatchGetItem a second, however often it asks', async () => {
    const c = customer({ perMinute: 90_000, perDay: 10_000_000 });
    for (let i = 0; i < 10; i++) {
      now = T0 + 100 * i;
      await c.status();
    }
    expect(reads(server.calls)).toEqual(['BatchGetItemCommand']);
  });

  it('consumes no quota', async () => {
    const c = customer({ perMinute: 50, perDay: 1_000 });
    await c.list();
    const before = await storedCounts(c.customerId, now);
    for (let i = 0; i < 30; i++) {
      now = T0 + 200 * i;
      await c.status();
    }
    expect(await storedCounts(c.customerId, now)).toMatchObject({ minute: before.minute, day: before.day });
  });
});

describe('GET /rate-limit during a ban: from memory, no DynamoDB call', () => {
  it('answers 200 with the ban from the instance memory, and reads only for the check every BAN_RECHECK_MS', async () => {
    const c = customer({ perMinute: 2, perDay: 1_000 }); // banned at 10 refusals in a minute
    now = T0 + 1_000;
    let listed = 0;
    while ((await c.list()) !== 429 || listed < 12) listed++;
    const banned = await c.status();
    expect(banned.ban.active).toBe(true);
    const until = banned.ban.until;
    expect(until).toBe((await storedCounts(c.customerId, now)).banUntil);
    server.calls.take();

    for (let i = 0; i < 20; i++) {
      now = T0 + 1_000 + i * 450;
      const answer = await c.status();
      expect(answer.ban).toEqual({ active: true, until });
      expect(answer.headers.get('X-RateLimit-Remaining')).toBe('0');
    }
    expect(server.calls.take().filter((call) => !isRefusalCount(call))).toEqual([]);

    // The check: one read, which finds the ban, then memory again.
    now = T0 + 1_000 + BAN_RECHECK_MS + 100;
    expect((await c.status()).ban.active).toBe(true);
    now += 2_000;
    expect((await c.status()).ban.active).toBe(true);
    expect(reads(server.calls)).toEqual(['GetItemCommand']);
  });
});
