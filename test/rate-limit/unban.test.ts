/**
 * An unban and the instances that remember the ban, on the test's clock and against DynamoDB Local, every call
 * counted: several instances of the process's rate limiter (the refusal cache and the status memory over the store,
 * as lib/http/operation.ts's processRateLimiter builds it) over one counters table. No instance answers the ban to a request
 * later than BAN_RECHECK_MS after the unban, none flips back to it, and refusals an instance still held from before
 * the unban never count toward a new ban, while refusals made after it still do.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { banThreshold } from '../../lib/rate-limit/ban.js';
import { dayRefusalName } from '../../lib/rate-limit/counter-item.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { banLifter } from '../../lib/rate-limit/lift-ban.js';
import type { Admission } from '../../lib/rate-limit/limiter.js';
import { BAN_RECHECK_MS, refusalCache } from '../../lib/rate-limit/refusal-cache.js';
import { statusMemory } from '../../lib/rate-limit/status-memory.js';
import { windowStarts } from '../../lib/rate-limit/windows.js';
import { storedCounts } from '../support/counters.js';
import { testDb } from '../support/customers.js';
import { isRefusalCount, recordedClient } from '../support/dynamo-calls.js';

/** 2036-03-10 12:34:00 UTC, a minute start in the future (DynamoDB Local applies the TTL). */
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
const TABLE = process.env.COUNTERS_TABLE ?? '';

const { db, recorder } = recordedClient();
const store = dynamoRateLimiter(db, TABLE, { banSeconds: 900 });
/** The admin CLI's store: its own client, its calls not counted. */
const operator = dynamoRateLimiter(testDb, TABLE, { banSeconds: 900 });
const operatorBans = banLifter(testDb, TABLE);

/** An instance as a function's process builds it; its timer's writes run only when the test says. */
function instance() {
  return refusalCache(statusMemory(store), { schedule: () => undefined });
}

const outcome = (admission: Admission) => (admission.admitted ? 'admitted' : admission.reason);
const newCustomer = () => `unban-${randomUUID().slice(0, 8)}`;

/** Fills the minute of `atMs` and bans the customer, as other instances would have. */
async function usedUpAndBanned(customerId: string, limits: { perMinute: number; perDay: number }, atMs: number) {
  await Promise.all(Array.from({ length: limits.perMinute }, () => operator.consume(customerId, limits, atMs)));
  const { banUntil } = await operator.countRefusals(customerId, limits, banThreshold(limits), windowStarts(atMs / 1000).minuteStart, atMs);
  expect(banUntil).toBeDefined();
}

describe('after an unban, every instance stops answering the ban within BAN_RECHECK_MS', () => {
  it('three instances that learned the ban at different times: none answers it later, none flips back, no new ban', async () => {
    const id = newCustomer();
    const limits = { perMinute: 200, perDay: 100_000 }; // threshold 200: more than this test's refusals after the unban
    await usedUpAndBanned(id, limits, T0 + 1_000);
    const unbannedAt = T0 + 15_000;
    const learnedAt = [unbannedAt - 9_900, unbannedAt - 5_000, unbannedAt - 100];
    const instances = learnedAt.map(() => instance());
    for (const [i, limiter] of instances.entries()) expect(outcome(await limiter.consume(id, limits, learnedAt[i] ?? 0))).toBe('banned');
    expect(await operatorBans.unban(id, unbannedAt)).toBe(true);
    recorder.take();

    const answers: { i: number; at: number; outcome: string }[] = [];
    for (let at = unbannedAt; at <= unbannedAt + 15_000; at += 250) {
      for (const [i, limiter] of instances.entries()) answers.push({ i, at, outcome: outcome(await limiter.consume(id, limits, at)) });
    }
    // The bound: no request later than BAN_RECHECK_MS after the unban is answered with the ban.
    expect(answers.filter((a) => a.outcome === 'banned' && a.at >= unbannedAt + BAN_RECHECK_MS)).toEqual([]);
    for (const [i, at] of learnedAt.entries()) {
      const own = answers.filter((a) => a.i === i);
      // Each answers the ban from memory exactly until its check, BAN_RECHECK_MS after it learned it...
      expect(own.filter((a) => a.outcome === 'banned').map((a) => a.at)).toEqual(
        own.filter((a) => a.at < at + BAN_RECHECK_MS).map((a) => a.at),
      );
      // ...and then, still over the minute's limit, is refused for it, never banned again.
      expect(own.filter((a) => a.at >= at + BAN_RECHECK_MS).every((a) => a.outcome === 'limit')).toBe(true);
    }
    // One admission per instance reached DynamoDB after the unban: its check. The rest came from memory.
    const admissions = recorder.take().filter((c) => c.command === 'UpdateItemCommand' && !isRefusalCount(c));
    expect(admissions).toHaveLength(instances.length);
    await Promise.all(instances.map((limiter) => limiter.flushAll()));
    const stored = await storedCounts(id, unbannedAt + 15_000);
    expect(stored.banUntil).toBeUndefined();
    expect(stored.refusals).toBe(answers.filter((a) => a.outcome === 'limit').length);
  });

  it('requests that arrive while an instance checks its ban wait for the check instead of answering the ban', async () => {
    const id = newCustomer();
    const limits = { perMinute: 50, perDay: 100_000 };
    await usedUpAndBanned(id, limits, T0);
    const limiter = instance();
    expect(outcome(await limiter.consume(id, limits, T0 + 1_000))).toBe('banned');
    await operatorBans.unban(id, T0 + 2_000);
    const at = T0 + 1_000 + BAN_RECHECK_MS;
    const together = await Promise.all(Array.from({ length: 5 }, () => limiter.consume(id, limits, at)));
    expect(together.map(outcome)).toEqual(Array(5).fill('limit'));
  });

  it('GET /rate-limit: the ban from memory with no call until the check, which reads once and finds it lifted', async () => {
    const id = newCustomer();
    const limits = { perMinute: 50, perDay: 100_000 };
    await usedUpAndBanned(id, limits, T0);
    const limiter = instance();
    const banned = await limiter.peek(id, limits, T0 + 1_000);
    expect(banned.banUntil).toBe(T0 / 1000 + 900);
    recorder.take();
    for (let at = T0 + 1_000; at < T0 + 1_000 + BAN_RECHECK_MS; at += 500)
      expect((await limiter.peek(id, limits, at)).banUntil).toBe(banned.banUntil);
    expect(recorder.take()).toEqual([]);
    await operatorBans.unban(id, T0 + 5_000);
    const checked = await limiter.peek(id, limits, T0 + 1_000 + BAN_RECHECK_MS);
    expect(checked).toMatchObject({ banUntil: null, windows: { minute: { remaining: 0 } } });
    expect(recorder.take().map((c) => c.command)).toEqual(['GetItemCommand']);
    // The read now serves the next second; the operations learn of the unban at their own check.
    expect((await limiter.peek(id, limits, T0 + 1_500 + BAN_RECHECK_MS)).banUntil).toBeNull();
    expect(recorder.take()).toEqual([]);
  });
});

describe('refusals an instance held from before an unban never count toward a new ban', () => {
  it('a batch that began before the unban is left out (but kept in the day for the history); later refusals still ban at the threshold', async () => {
    const id = newCustomer();
    const limits = { perMinute: 5, perDay: 1_000 }; // threshold 10
    await Promise.all(Array.from({ length: 5 }, () => operator.consume(id, limits, T0)));
    // This instance refuses 9 times in the first 800 ms; below the threshold and within the interval, they wait.
    const limiter = instance();
    for (let i = 0; i < 9; i++) expect(outcome(await limiter.consume(id, limits, T0 + 100 * i))).toBe('limit');
    expect(recorder.take().filter(isRefusalCount)).toEqual([]);
    // Meanwhile other instances' refusals ban the customer, and the operator lifts the ban.
    await operator.countRefusals(id, limits, 10, T0 / 1000, T0 + 200);
    await operatorBans.unban(id, T0 + 500);

    // The tenth refusal here brings this instance's count to the threshold: it writes, and the store leaves out the
    // batch, which began before the unban. No ban.
    expect(outcome(await limiter.consume(id, limits, T0 + 900))).toBe('limit');
    expect(recorder.take().filter(isRefusalCount)).toEqual([expect.objectContaining({ error: 'ConditionalCheckFailedException' })]);
    expect(await storedCounts(id, T0 + 900)).toMatchObject({ refusals: 0, banUntil: undefined });
    const { Item } = await testDb.send(new GetCommand({ TableName: TABLE, Key: { customerId: id }, ConsistentRead: true }));
    expect(Item?.[dayRefusalName(windowStarts(T0 / 1000).dayStart)]).toBe(10 + 10);

    // Refusals after the unban count as ever: the tenth starts the ban (and is answered as a refusal), the next is banned.
    for (let i = 0; i < 10; i++) expect(outcome(await limiter.consume(id, limits, T0 + 1_000 + 50 * i))).toBe('limit');
    expect(await storedCounts(id, T0 + 1_500)).toMatchObject({ refusals: 10, banUntil: T0 / 1000 + 1 + 900 });
    expect(outcome(await limiter.consume(id, limits, T0 + 1_550))).toBe('banned');
  });
});

describe('an unban of a customer who is not banned changes nothing', () => {
  const readItem = async (customerId: string) =>
    (await testDb.send(new GetCommand({ TableName: TABLE, Key: { customerId }, ConsistentRead: true }))).Item;

  it('refusals made before it still count toward a ban: 9 refused, a no-op unban, and the next refusal, the tenth, starts the ban', async () => {
    const id = newCustomer();
    const limits = { perMinute: 10, perDay: 1_000 }; // threshold 10
    const limiter = instance();
    const answers: string[] = [];
    for (let i = 0; i < 19; i++) answers.push(outcome(await limiter.consume(id, limits, T0 + 50 * i)));
    expect(answers).toEqual([...Array(10).fill('admitted'), ...Array(9).fill('limit')]);
    const before = await readItem(id);

    recorder.take();
    const { db: own, recorder: operatorCalls } = recordedClient('noOpUnban');
    expect(await banLifter(own, TABLE).unban(id, T0 + 1_000)).toBe(false);
    // Not a single write succeeded: the item is as it was, with no unban's time on it.
    expect(operatorCalls.writes(operatorCalls.take()).filter((c) => !c.failed)).toEqual([]);
    expect(await readItem(id)).toEqual(before);
    expect(before?.unbannedAtMs).toBeUndefined();

    // The next refusal is the minute's tenth (the nine before the unban count): it starts the ban, answered as the
    // refusal it is; the ban answers the rest.
    const after: string[] = [];
    for (let i = 0; i < 6; i++) after.push(outcome(await limiter.consume(id, limits, T0 + 1_100 + 50 * i)));
    expect(after).toEqual(['limit', ...Array(5).fill('banned')]);
    expect(await storedCounts(id, T0 + 1_500)).toMatchObject({ refusals: 10, banUntil: T0 / 1000 + 1 + 900 });
  });

  it('a ban that has just run out is not lifted: the item is left as it is', async () => {
    const id = newCustomer();
    const limits = { perMinute: 50, perDay: 100_000 };
    await usedUpAndBanned(id, limits, T0);
    const before = await readItem(id);
    expect(before?.banUntil).toBe(T0 / 1000 + 900);
    // At the ban's last moment it is still in force; at its end it is not.
    const ended = T0 + 900_000;
    expect(await operatorBans.unban(id, ended)).toBe(false);
    expect(await readItem(id)).toEqual(before);
    expect(await operatorBans.unban(id, ended - 1)).toBe(true);
    expect(await readItem(id)).toMatchObject({ unbannedAtMs: ended - 1 });
    expect((await readItem(id))?.banUntil).toBeUndefined();
  });

  it('a customer with no counters at all: no item is made', async () => {
    const id = newCustomer();
    expect(await operatorBans.unban(id, T0)).toBe(false);
    expect(await readItem(id)).toBeUndefined();
  });
});
