/**
 * A warm instance's memory of refusals (issue 13, point 2), with every DynamoDB call counted. Through the real
 * Middy chain where the answer matters (the same 429, headers and Retry-After with no call), and on instances of
 * the limiter built here where the batching of refusal counts matters (their timer is in the test's hands). Every
 * handler this file calls is a new instance (newInstance, which resets the module registry), made for its test.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { setClock } from '../../lib/clock.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { banLifter } from '../../lib/rate-limit/lift-ban.js';
import { BAN_RECHECK_MS, refusalCache } from '../../lib/rate-limit/refusal-cache.js';
import { sentHeaders } from '../support/answer.js';
import { storedCounts } from '../support/counters.js';
import { type CallRecorder, isRefusalCount, newInstance, recordedClient } from '../support/dynamo-calls.js';
import { type Answer, invoke, proxyEvent } from '../support/events.js';

/** 2036-03-10 12:34:00 UTC, a minute start in the future (DynamoDB Local applies the TTL). */
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
let now = T0;
setClock(() => now);

/** The limiters built here (the store, the instances below) run on a client of this file's own. */
const own = recordedClient();
/**
 * The chain's instance (list-categories' handler, its rate limiter and clients): a new one for each test, so what
 * it records is that test's, never a refusal batch an earlier test's instance writes when its timer fires.
 */
let chain: Awaited<ReturnType<typeof newChain>>;
const newChain = () =>
  newInstance(
    () => import('../../functions/list-categories.js'),
    () => now,
  );
beforeEach(async () => {
  now = T0;
  own.recorder.take();
  chain = await newChain();
});

const store = dynamoRateLimiter(own.db, process.env.COUNTERS_TABLE ?? '', { banSeconds: 900 });
/** Another instance: its own memory over the same table; its leftover writes run when the test says. */
function instance() {
  const scheduled: (() => void)[] = [];
  const limiter = refusalCache(store, { schedule: (write) => scheduled.push(write) });
  const runScheduled = () => {
    for (const write of scheduled.splice(0)) write();
  };
  return { limiter, runScheduled };
}

function caller(limits: { perMinute: number; perDay: number }, customerId = `cache-${randomUUID().slice(0, 8)}`) {
  const authorizer = {
    principalId: customerId,
    customerId,
    keyId: 'key_0000000000000000',
    plan: 'enterprise',
    perMinute: String(limits.perMinute),
    perDay: String(limits.perDay),
  };
  return { customerId, limits, list: () => invoke(chain.handler, proxyEvent({ authorizer })) };
}

/** The answer without what differs per request. */
const sameAnswer = (answer: Answer) => {
  const { status, body } = answer;
  const { 'X-Request-Id': _, ...rest } = sentHeaders(answer);
  return { status, headers: rest, body };
};

/** The chain's calls other than its batched refusal counts (which its timer may write at any moment). */
const requestCalls = () => chain.calls.take().filter((c) => !isRefusalCount(c));
/** The calls about one customer's item. */
const callsFor = (recorder: CallRecorder, customerId: string) => recorder.take().filter((c) => c.key === customerId);

describe('a warm instance that has seen a customer refused', () => {
  it('answers its next requests with the same 429, headers and Retry-After, and no DynamoDB call', async () => {
    const c = caller({ perMinute: 3, perDay: 1_000 });
    now = T0 + 12_000;
    for (let i = 0; i < 3; i++) expect((await c.list()).status).toBe(200);
    const fromDynamo = await c.list();
    expect(fromDynamo.status).toBe(429);
    chain.calls.take();

    const fromMemory = await c.list();
    expect(requestCalls()).toEqual([]);
    expect(sameAnswer(fromMemory)).toEqual(sameAnswer(fromDynamo));
    expect(fromMemory.headers.get('Retry-After')).toBe('48');

    // Later in the same minute: still no call for the request, and Retry-After counts down.
    now = T0 + 40_000;
    const later = await c.list();
    expect(requestCalls()).toEqual([]);
    expect(sentHeaders(later)).toMatchObject({
      'Retry-After': '20',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(T0 / 1000 + 60),
    });
  });

  it('forgets the refusal when its window resets: the next minute is admitted', async () => {
    const c = caller({ perMinute: 2, perDay: 1_000 });
    for (let i = 0; i < 3; i++) await c.list();
    now = T0 + 60_000;
    expect((await c.list()).status).toBe(200);
  });

  it('never refuses from memory after a plan change: the same customer with new limits is admitted at once', async () => {
    const before = caller({ perMinute: 2, perDay: 1_000 });
    for (let i = 0; i < 3; i++) await before.list();
    expect((await before.list()).status).toBe(429);
    const after = caller({ perMinute: 10, perDay: 1_000 }, before.customerId);
    const answer = await after.list();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('X-RateLimit-Remaining')).toBe('7'); // the same counters: 3 admitted in this minute
  });

  it('remembers a used-up day until the day ends, with the minute window moving on', async () => {
    const c = caller({ perMinute: 5, perDay: 5 });
    for (let i = 0; i < 5; i++) await c.list();
    expect((await c.list()).status).toBe(429);
    now = T0 + 5 * 60_000;
    chain.calls.take();
    const answer = await c.list();
    expect(requestCalls()).toEqual([]);
    expect(sentHeaders(answer)).toMatchObject({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Date.UTC(2036, 2, 11) / 1000) });
    expect(answer.headers.get('RateLimit')).toMatch(/^"minute";r=5;t=60, "day";r=0;/);
  });

  it('600 concurrent requests against 60 per minute: exactly 60 admitted, and about one call each', async () => {
    const c = caller({ perMinute: 60, perDay: 1_000 });
    const answers = await Promise.all(Array.from({ length: 600 }, () => c.list()));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    const calls = callsFor(chain.calls, c.customerId);
    const counted = calls.filter((call) => call.command === 'UpdateItemCommand' && !isRefusalCount(call));
    expect(counted.length).toBeLessThanOrEqual(600 + 1); // one admission each, and the ban's write
    expect(calls.filter(isRefusalCount).length).toBeLessThanOrEqual(5);
    expect(await storedCounts(c.customerId, now)).toMatchObject({ minute: 60, day: 60 });
  });
});

describe('refusals answered from memory count toward the ban, in batches', () => {
  it('at most one write per customer per second; the refusal that reaches the threshold writes at once, the next is banned', async () => {
    const { limiter } = instance();
    const id = `batch-${randomUUID().slice(0, 8)}`;
    const limits = { perMinute: 5, perDay: 1_000 }; // ban threshold: max(10, 5) = 10
    for (let i = 0; i < 5; i++) await limiter.consume(id, limits, T0);
    own.recorder.take();

    const refuse = async (atMs: number) => {
      const admission = await limiter.consume(id, limits, atMs);
      return { admission, calls: callsFor(own.recorder, id) };
    };
    // The first refusal reaches DynamoDB: its failed admission is its only write.
    expect((await refuse(T0)).calls).toEqual([expect.objectContaining({ error: 'ConditionalCheckFailedException' })]);
    for (const at of [100, 200, 300]) expect((await refuse(T0 + at)).calls).toEqual([]);
    expect((await storedCounts(id, T0)).refusals).toBe(0);

    // A second after the first, the next refusal writes the four that waited and itself: one addition.
    const fifth = await refuse(T0 + 1_000);
    expect(fifth.calls).toEqual([expect.objectContaining({ update: expect.stringMatching(/^ADD #r/) })]);
    expect(fifth.admission).toMatchObject({ admitted: false, reason: 'limit' });
    expect((await storedCounts(id, T0)).refusals).toBe(5);

    for (const at of [1_100, 1_200, 1_300, 1_400]) expect((await refuse(T0 + at)).calls).toEqual([]);
    // The tenth refusal of the minute: 5 written + 5 waiting reach the threshold, so it writes now and starts the ban.
    // It is answered as the refusal it is (it is the tenth RATE_LIMIT_EXCEEDED a client sees); the ban answers the next.
    const tenth = await refuse(T0 + 1_500);
    expect(tenth.calls).toHaveLength(2); // the addition, then the ban
    expect(tenth.admission).toMatchObject({ admitted: false, reason: 'limit' });
    expect(await storedCounts(id, T0)).toMatchObject({ refusals: 10, banUntil: T0 / 1000 + 1 + 900 });
    const eleventh = await refuse(T0 + 1_600);
    expect(eleventh.admission).toMatchObject({ admitted: false, reason: 'banned', banUntil: T0 / 1000 + 1 + 900 });
    expect(eleventh.calls).toEqual([]);
    expect((await storedCounts(id, T0)).refusals).toBe(10);
  });

  it('writes what is left when the client stops, after the interval', async () => {
    const { limiter, runScheduled } = instance();
    const id = `leftover-${randomUUID().slice(0, 8)}`;
    const limits = { perMinute: 1, perDay: 1_000 };
    await limiter.consume(id, limits, T0);
    for (let i = 0; i < 3; i++) await limiter.consume(id, limits, T0);
    expect((await storedCounts(id, T0)).refusals).toBe(0);
    runScheduled();
    await limiter.flushAll(); // waits for the write the schedule started
    expect((await storedCounts(id, T0)).refusals).toBe(3);
  });

  it('adds up the refusals of several instances: together they reach the threshold and ban', async () => {
    const a = instance();
    const b = instance();
    const id = `pair-${randomUUID().slice(0, 8)}`;
    const limits = { perMinute: 5, perDay: 1_000 };
    for (let i = 0; i < 5; i++) await a.limiter.consume(id, limits, T0);
    for (let i = 0; i < 6; i++) await a.limiter.consume(id, limits, T0);
    for (let i = 0; i < 4; i++) await b.limiter.consume(id, limits, T0);
    await a.limiter.flushAll();
    expect((await storedCounts(id, T0)).banUntil).toBeUndefined();
    await b.limiter.flushAll();
    expect((await storedCounts(id, T0)).banUntil).toBe(T0 / 1000 + 900);
    // An instance that knew only the used-up minute learns of the ban from DynamoDB once the minute is over.
    expect(await a.limiter.consume(id, limits, T0 + 60_000)).toMatchObject({ reason: 'banned', banUntil: T0 / 1000 + 900 });
  });
});

describe('a remembered ban', () => {
  it('costs no call, and an unban takes effect on a warm instance within BAN_RECHECK_MS', async () => {
    expect(BAN_RECHECK_MS).toBe(10_000);
    const c = caller({ perMinute: 5, perDay: 1_000 });
    now = T0 + 1_000;
    for (let i = 0; i < 5; i++) await c.list();
    const refusals = [];
    for (let i = 0; i < 11; i++) refusals.push(await c.list());
    expect(refusals.at(-2)?.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(refusals.at(-1)?.body).toMatchObject({ code: 'API_KEY_TEMPORARILY_BANNED' });
    chain.calls.take();

    now = T0 + 3_000;
    expect((await c.list()).body).toMatchObject({ code: 'API_KEY_TEMPORARILY_BANNED' });
    expect(requestCalls()).toEqual([]);

    // The operator lifts the ban (the admin CLI's store, another process); this instance still remembers it...
    expect(await banLifter(own.db, process.env.COUNTERS_TABLE ?? '').unban(c.customerId, now)).toBe(true);
    now = T0 + 1_000 + BAN_RECHECK_MS - 1;
    expect((await c.list()).body).toMatchObject({ code: 'API_KEY_TEMPORARILY_BANNED' });
    expect(requestCalls()).toEqual([]);

    // ...until BAN_RECHECK_MS after it learned it: one request asks DynamoDB, which has no ban any more. The minute
    // is still used up, so the answer is the plain refusal; the next minute is admitted.
    now = T0 + 1_000 + BAN_RECHECK_MS;
    const rechecked = await c.list();
    expect(rechecked.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    // One admission write (the list's read ran beside it: the re-check may well be admitted).
    expect(requestCalls().filter((call) => call.command === 'UpdateItemCommand')).toHaveLength(1);
    now = T0 + 60_000;
    expect((await c.list()).status).toBe(200);
  });

  it('without an unban, the re-check finds the ban again and keeps it to its end', async () => {
    const { limiter } = instance();
    const id = `kept-${randomUUID().slice(0, 8)}`;
    const limits = { perMinute: 1, perDay: 1_000 };
    await store.countRefusals(id, limits, 10, T0 / 1000, T0);
    expect(await limiter.consume(id, limits, T0)).toMatchObject({ reason: 'banned' });
    own.recorder.take();
    expect(await limiter.consume(id, limits, T0 + 5_000)).toMatchObject({ reason: 'banned' });
    expect(callsFor(own.recorder, id)).toEqual([]);
    expect(await limiter.consume(id, limits, T0 + 15_000)).toMatchObject({ reason: 'banned', banUntil: T0 / 1000 + 900 });
    expect(callsFor(own.recorder, id)).toHaveLength(1);
    expect((await limiter.consume(id, limits, T0 + 900_000)).admitted).toBe(true);
  });
});
