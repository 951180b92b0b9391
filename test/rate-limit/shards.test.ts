/**
 * Enterprise customers past one item (issue 13, point 3): the shard count and shares, exact admission over several
 * items, no 429 while any item has quota, the headers and GET /rate-limit figures of a sharded customer, its ban,
 * and the proof that sharding keeps each item under DynamoDB's per-partition write ceiling: a test-only SDK
 * middleware throttles any one item written more than X times in a second, as DynamoDB does, and a customer is
 * driven at 4 × X requests per second.
 */
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nowMs, setClock } from '../../lib/clock.js';
import { errorAnswer } from '../../lib/http/to-http-error.js';
import { dayCountName, minuteCountName } from '../../lib/rate-limit/counter-item.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { banLifter } from '../../lib/rate-limit/lift-ban.js';
import type { Admission } from '../../lib/rate-limit/limiter.js';
import { refusalCache } from '../../lib/rate-limit/refusal-cache.js';
import {
  ADMISSION_SHARE,
  ITEM_CAPACITY_PER_MINUTE,
  MAX_SHARDS,
  PARTITION_WRITE_UNITS_PER_SECOND,
  PER_MINUTE_MAX,
  shardCount,
  shardKey,
  shardLimits,
} from '../../lib/rate-limit/shards.js';
import { storedCounts } from '../support/counters.js';
import { testDb } from '../support/customers.js';
import { recordedClient } from '../support/dynamo-calls.js';

const TABLE = process.env.COUNTERS_TABLE ?? '';
/** The limiters of this file run on a client of its own: what the tests count or throttle is theirs alone. */
const own = recordedClient();
/** 2036-03-10 12:34:00 UTC, a minute start in the future (DynamoDB Local applies the TTL). */
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
let now = T0;
setClock(() => now);
beforeEach(() => {
  now = T0;
  own.recorder.take();
});
let serial = 0;
const customer = (what: string) => `shard-${what}-${Date.now().toString(36)}-${serial++}`;

describe('how many items, and each one share', () => {
  it('one item carries 30,000 a minute: half of 1,000 write units a second, for a minute', () => {
    expect(ITEM_CAPACITY_PER_MINUTE).toBe(PARTITION_WRITE_UNITS_PER_SECOND * ADMISSION_SHARE * 60);
    expect(ITEM_CAPACITY_PER_MINUTE).toBe(30_000);
    expect(PER_MINUTE_MAX).toBe(600_000);
  });

  it.each([
    [60, 1],
    [30_000, 1],
    [30_001, 2],
    [100_000, 4],
    [600_000, 20],
    [5_000_000, MAX_SHARDS],
  ])('%i per minute is counted on %i item(s)', (perMinute, items) => {
    expect(shardCount({ perMinute, perDay: 1_000_000_000 })).toBe(items);
  });

  it('the shares add up to the limits exactly, and differ by at most one', () => {
    const limits = { perMinute: 100_003, perDay: 9_999_999 };
    const n = shardCount(limits);
    const shares = Array.from({ length: n }, (_, i) => shardLimits(limits, n, i));
    expect(shares.reduce((s, l) => s + l.perMinute, 0)).toBe(limits.perMinute);
    expect(shares.reduce((s, l) => s + l.perDay, 0)).toBe(limits.perDay);
    expect(Math.max(...shares.map((l) => l.perMinute)) - Math.min(...shares.map((l) => l.perMinute))).toBeLessThanOrEqual(1);
  });
});

/** A limiter whose items carry `capacity` a minute: a sharded customer without sending 30,000 requests. */
const scaled = (capacity: number, db = own.db) =>
  refusalCache(dynamoRateLimiter(db, TABLE, { banSeconds: 900, itemCapacityPerMinute: capacity }), { schedule: () => {} });

describe('a customer counted on several items', () => {
  const limits = { perMinute: 400, perDay: 10_000 };
  const capacity = 100; // 4 items of 100 a minute

  it('admits exactly its limit under concurrency, and GET /rate-limit sums its items', async () => {
    const id = customer('exact');
    const limiter = scaled(capacity);
    // 700 requests, 64 in flight at any time: as many as the client has sockets, so DynamoDB Local sees the same
    // concurrency, and no request waits for a socket past the client's 5 s request timeout on a loaded machine.
    let started = 0;
    const lanes = Array.from({ length: 64 }, async () => {
      const answered: Admission[] = [];
      while (started++ < 700) answered.push(await limiter.consume(id, limits, now));
      return answered;
    });
    const answers = (await Promise.all(lanes)).flat();
    expect(answers).toHaveLength(700);
    expect(answers.filter((a) => a.admitted)).toHaveLength(400);
    expect(await storedCounts(id, now)).toMatchObject({ minute: 400, day: 400, items: 4 });
    const status = await limiter.peek(id, limits, now);
    expect(status.windows.minute).toMatchObject({ limit: 400, remaining: 0 });
    expect(status.windows.day).toMatchObject({ limit: 10_000, remaining: 9_600 });
  });

  it('tries the other items before refusing: no 429 while any item has quota left', async () => {
    const id = customer('spill');
    const minute = minuteCountName(T0 / 1000);
    const day = dayCountName(Date.UTC(2036, 2, 10) / 1000);
    // Three items used up, one with a single request left.
    for (let i = 0; i < 4; i++) {
      await testDb.send(
        new PutCommand({ TableName: TABLE, Item: { customerId: shardKey(id, i), [minute]: i === 3 ? 99 : 100, [day]: 100 } }),
      );
    }
    const limiter = scaled(capacity);
    own.recorder.take();
    const last = await limiter.consume(id, limits, now);
    expect(last).toMatchObject({ admitted: true });
    const refused = await limiter.consume(id, limits, now);
    expect(refused).toMatchObject({ admitted: false, reason: 'limit' });
    expect(refused.windows.minute).toMatchObject({ remaining: 0, reset: T0 / 1000 + 60 });
    // The instance remembers which items are full: the two requests together wrote each item at most once more.
    const writes = own.recorder.take().filter((c) => c.command === 'UpdateItemCommand');
    expect(writes.length).toBeLessThanOrEqual(4);
    expect(new Set(writes.map((w) => w.key)).size).toBe(writes.length);
    expect((await limiter.peek(id, limits, now)).windows.minute.remaining).toBe(0);
  });

  it('X-RateLimit-Remaining: the sum of the items as this instance last saw them; exact when it alone counts', async () => {
    const id = customer('remaining');
    const limiter = scaled(capacity);
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) {
      const answer: Admission = await limiter.consume(id, limits, now);
      remaining.push(answer.windows.minute.remaining);
    }
    expect(remaining).toEqual([399, 398, 397, 396, 395, 394, 393, 392, 391, 390]);
    expect((await limiter.peek(id, limits, now)).windows.minute.remaining).toBe(390);
  });

  it('is banned on every item, and unbanned on every item', async () => {
    const id = customer('ban');
    const store = dynamoRateLimiter(own.db, TABLE, { banSeconds: 900, itemCapacityPerMinute: capacity });
    await store.countRefusals(id, limits, 400, T0 / 1000, now);
    for (let i = 0; i < 4; i++) {
      const fresh = scaled(capacity);
      expect(await fresh.consume(id, limits, now)).toMatchObject({ admitted: false, reason: 'banned', banUntil: T0 / 1000 + 900 });
    }
    expect((await store.peek(id, limits, now)).banUntil).toBe(T0 / 1000 + 900);
    expect(await banLifter(own.db, TABLE).unban(id, now)).toBe(true);
    const after = scaled(capacity);
    for (let i = 0; i < 4; i++) expect((await after.consume(id, limits, now)).admitted).toBe(true);
    // A second unban finds no ban on any item: every write's condition fails, nothing is written.
    own.recorder.take();
    expect(await banLifter(own.db, TABLE).unban(id, now)).toBe(false);
    expect(own.recorder.writes(own.recorder.take()).filter((c) => !c.failed)).toEqual([]);
  });
});

describe('under a per-item write ceiling, as DynamoDB enforces per partition', () => {
  /** The ceiling, scaled down from 1,000 write units a second; items carry the design's share of it. */
  const X = 10;
  const capacity = X * ADMISSION_SHARE * 60; // 300 a minute, as 30,000 is to 1,000
  const written = new Map<string, number>();
  let throttled = 0;
  const THROTTLE = 'perItemWriteCeiling';
  // A client of its own, its ceiling added before its first call: the count's UpdateItem resolves the middleware
  // stack once per command class on a client (hotClient, lib/dynamo/client.ts): one added later would not be seen.
  const ceiling = recordedClient('ceilingRecorder');

  // Below the SDK's retries: each attempt counts, as each reaches DynamoDB. A throttled write is not counted (it
  // consumed nothing) and is retried by the SDK with backoff, like the real error it imitates.
  beforeAll(() =>
    ceiling.client.middlewareStack.add(
      (next, context) => async (args) => {
        const input: unknown = args.input;
        const key =
          context.commandName === 'UpdateItemCommand' && typeof input === 'object' && input !== null && 'Key' in input
            ? JSON.stringify(input.Key)
            : undefined;
        if (!key) return next(args);
        const bucket = `${key}@${Math.floor(nowMs() / 1000)}`;
        const count = written.get(bucket) ?? 0;
        if (count >= X) {
          throttled++;
          throw Object.assign(
            new ProvisionedThroughputExceededException({
              message: 'The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded',
              $metadata: { httpStatusCode: 400 },
            }),
            { $retryable: { throttling: true } },
          );
        }
        written.set(bucket, count + 1);
        return next(args);
      },
      { step: 'deserialize', priority: 'high', name: THROTTLE },
    ),
  );
  afterAll(() => ceiling.client.middlewareStack.remove(THROTTLE));

  /**
   * 4 × X requests in each second of the test clock, spread over it in waves of 4 concurrent requests (as requests
   * arrive over a second, not all in one instant); what each request ended in, as the API would answer.
   */
  async function drive(limiter: ReturnType<typeof scaled>, id: string, limits: { perMinute: number; perDay: number }, seconds: number) {
    const statuses: number[] = [];
    const perSecond = 4 * X;
    const wave = 4;
    for (let s = 0; s < seconds; s++) {
      for (let w = 0; w < perSecond / wave; w++) {
        now = T0 + s * 1000 + Math.floor((w * 1000 * wave) / perSecond);
        const answers = await Promise.all(
          Array.from({ length: wave }, () =>
            limiter.consume(id, limits, now).then(
              (a) => (a.admitted ? 200 : 429),
              (error: unknown) => errorAnswer(error, 'drive').status,
            ),
          ),
        );
        statuses.push(...answers);
      }
    }
    return statuses;
  }

  it(`a sharded customer driven at 4 × X per second gets exactly its limit, no 503, no throttling; one item alone is throttled`, async () => {
    // 2,250 a minute on 300-a-minute items: 8 items, each written about 5 times a second at 40 requests a second.
    const limits = { perMinute: 2_250, perDay: 100_000 };
    expect(shardCount(limits, capacity)).toBe(8);
    const id = customer('ceiling');
    throttled = 0;
    const statuses = await drive(scaled(capacity, ceiling.db), id, limits, 60);
    expect(statuses).toHaveLength(60 * 4 * X);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2_250);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(throttled).toBe(0);
    expect(await storedCounts(id, T0)).toMatchObject({ minute: 2_250, items: 8 });

    // The same rate against a customer whose limit fits one item: that item gets all 4 × X writes a second and
    // DynamoDB throttles it beyond X; after the SDK's retries the API answers 503.
    const single = { perMinute: capacity, perDay: 100_000 };
    expect(shardCount(single, capacity)).toBe(1);
    now = T0;
    const lone = customer('one-item');
    const limiter = scaled(capacity, ceiling.db);
    const oneItem = await Promise.all(
      Array.from({ length: 4 * X }, () =>
        limiter.consume(lone, single, now).then(
          () => 200,
          (error: unknown) => errorAnswer(error, 'one').status,
        ),
      ),
    );
    expect(throttled).toBeGreaterThan(0);
    expect(oneItem.filter((s) => s === 503).length).toBeGreaterThan(0);
  }, 120_000);
});
