/**
 * What a refusal costs (issue 13, point 1), against DynamoDB Local with every call counted: counting refusals toward
 * the ban is one unconditional addition that never fails and never races, only the addition that reaches the
 * threshold writes the ban, and the threshold stays exact under concurrency.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { banThreshold } from '../../lib/rate-limit/ban.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { windowStarts } from '../../lib/rate-limit/windows.js';
import { storedCounts } from '../support/counters.js';
import { testDb } from '../support/customers.js';
import { isRefusalCount, recordedClient } from '../support/dynamo-calls.js';

/** The store under test runs on a client of this file's own: every call it records is the store's. */
const { db, recorder } = recordedClient();
const store = dynamoRateLimiter(db, process.env.COUNTERS_TABLE ?? '', { banSeconds: 900 });
beforeEach(() => {
  recorder.take();
});

/** 2036-03-10 12:34:10 UTC: in the future, so DynamoDB Local's TTL never deletes the items under the test. */
const NOW = Date.UTC(2036, 2, 10, 12, 34, 10);
const { minuteStart } = windowStarts(NOW / 1000);
const limits = { perMinute: 5, perDay: 1_000 };
let serial = 0;
const customer = () => `refusals-${Date.now().toString(36)}-${serial++}`;

describe('counting refusals toward the ban', () => {
  it('is one unconditional write per addition: 40 concurrent additions all succeed and add up exactly', async () => {
    const id = customer();
    const results = await Promise.all(Array.from({ length: 40 }, () => store.countRefusals(id, limits, 1, minuteStart, NOW)));
    const calls = recorder.take();
    expect(calls.filter(isRefusalCount)).toHaveLength(40);
    expect(calls.filter((c) => c.failed)).toEqual([]);
    // DynamoDB serialises the additions: each saw its own total, 1 to 40.
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await storedCounts(id, NOW)).refusals).toBe(40);
  });

  it('writes the ban exactly once, from the addition that reaches the threshold, even when all race', async () => {
    const id = customer();
    expect(banThreshold(limits)).toBe(10);
    const results = await Promise.all(Array.from({ length: 40 }, () => store.countRefusals(id, limits, 1, minuteStart, NOW)));
    const calls = recorder.take();
    const banWrites = calls.filter((c) => c.command === 'UpdateItemCommand' && !isRefusalCount(c));
    expect(banWrites).toEqual([expect.objectContaining({ key: id, failed: false })]);
    const banUntil = NOW / 1000 + 900;
    // The tenth addition and every later one report the ban (later ones may return before the ban is written).
    expect(results.find((r) => r.count === 10)?.banUntil).toBe(banUntil);
    expect(results.filter((r) => r.count < 10).every((r) => r.banUntil === undefined)).toBe(true);
    expect(await storedCounts(id, NOW)).toMatchObject({ refusals: 40, banUntil });
  });

  it('counts a batch as its size: the batch that jumps over the threshold starts the ban', async () => {
    const id = customer();
    const first = await store.countRefusals(id, limits, 4, minuteStart, NOW);
    const second = await store.countRefusals(id, limits, 4, minuteStart, NOW);
    expect([first, second]).toEqual([
      { count: 4, banUntil: undefined },
      { count: 8, banUntil: undefined },
    ]);
    recorder.take();
    const third = await store.countRefusals(id, limits, 4, minuteStart, NOW);
    expect(third).toEqual({ count: 12, banUntil: NOW / 1000 + 900 });
    expect(recorder.take().filter((c) => c.command === 'UpdateItemCommand')).toHaveLength(2); // the addition, the ban
  });

  it('counts each minute on its own: refusals of the last minute never add to this one', async () => {
    const id = customer();
    await store.countRefusals(id, limits, 9, minuteStart - 60, NOW - 60_000);
    expect(await store.countRefusals(id, limits, 1, minuteStart, NOW)).toEqual({ count: 1, banUntil: undefined });
  });

  it('never extends a running ban: an addition that crosses again after the ban was written leaves its end', async () => {
    const id = customer();
    await store.countRefusals(id, limits, 10, minuteStart, NOW);
    const later = await store.countRefusals(id, limits, 5, minuteStart, NOW + 20_000);
    expect(later.banUntil).toBe(NOW / 1000 + 900);
  });
});

describe('a refused request reaching DynamoDB', () => {
  it('costs the one failed conditional write of its admission, nothing else (its refusal is counted by the caller, in a batch)', async () => {
    const id = customer();
    for (let i = 0; i < limits.perMinute; i++) expect((await store.consume(id, limits, NOW)).admitted).toBe(true);
    recorder.take();
    const refused = await store.consume(id, limits, NOW);
    expect(refused).toMatchObject({ admitted: false, reason: 'limit' });
    expect(recorder.take()).toEqual([expect.objectContaining({ command: 'UpdateItemCommand', error: 'ConditionalCheckFailedException' })]);
  });

  it('during a ban, also one failed write, and the answer says until when', async () => {
    const id = customer();
    await store.countRefusals(id, limits, 10, minuteStart, NOW);
    recorder.take();
    expect(await store.consume(id, limits, NOW + 5_000)).toMatchObject({ admitted: false, reason: 'banned', banUntil: NOW / 1000 + 900 });
    expect(recorder.take()).toHaveLength(1);
  });

  it('an admitted request is one write, the first of a new minute included (the counts are named after their windows)', async () => {
    const id = customer();
    await store.consume(id, limits, NOW);
    recorder.take();
    expect((await store.consume(id, limits, NOW + 60_000)).admitted).toBe(true);
    expect((await store.consume(id, limits, NOW + 86_400_000)).admitted).toBe(true);
    expect(recorder.take()).toEqual([
      expect.objectContaining({ command: 'UpdateItemCommand', failed: false }),
      expect.objectContaining({ command: 'UpdateItemCommand', failed: false }),
    ]);
  });

  it('removes the counts of ended windows as it goes, so the item stays small', async () => {
    const id = customer();
    for (let minute = 0; minute < 6; minute++) await store.consume(id, limits, NOW + minute * 120_000);
    await store.consume(id, limits, NOW + 6 * 120_000);
    const { Item } = await testDb.send(
      new GetCommand({ TableName: process.env.COUNTERS_TABLE, Key: { customerId: id }, ConsistentRead: true }),
    );
    // The current minute and day, at most the minute before (kept for instances whose clock is a moment behind).
    expect(Object.keys(Item ?? {}).filter((name) => /^m\d+$/.test(name)).length).toBeLessThanOrEqual(2);
  });
});
