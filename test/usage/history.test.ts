/**
 * The daily usage history (lib/usage/): the day counts on the counter items, moved to the history once final by the
 * usage sweep's guarded transaction (never by a request), exact under concurrency across UTC midnight (and while
 * several sweeps race to move a day, and requests write the same items), refusals counted beside admissions, kept
 * for the retention, read back by day and by month.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as listCategories } from '../../functions/list-categories.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { createDocumentClient, createDynamoClient, documentClient } from '../../lib/dynamo/client.js';
import { dayCountName, dayRefusalName } from '../../lib/rate-limit/counter-item.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import type { Admission, CounterStore } from '../../lib/rate-limit/limiter.js';
import { refusalCache } from '../../lib/rate-limit/refusal-cache.js';
import { counterKeys, ownerOfKey, shardKey } from '../../lib/rate-limit/shards.js';
import { windowStarts } from '../../lib/rate-limit/windows.js';
import { daySweep, SWEEP_STATE_KEY } from '../../lib/usage/day-sweep.js';
import { DAY_SECONDS } from '../../lib/usage/days.js';
import { usageHistory } from '../../lib/usage/history.js';
import { testDb } from '../support/customers.js';
import { type Answer, invoke, proxyEvent } from '../support/events.js';

const COUNTERS_TABLE = process.env.COUNTERS_TABLE ?? '';
const history = usageHistory(documentClient(), COUNTERS_TABLE, { counterKeys });

/**
 * Midnight between 2036-03-10 and 2036-03-11 UTC: in the future, as DynamoDB Local applies the counters' TTL to the
 * real clock.
 */
const MIDNIGHT = Date.UTC(2036, 2, 11);
const DAY_BEFORE = MIDNIGHT / 1000 - DAY_SECONDS;
const DAY_MS = DAY_SECONDS * 1000;

afterEach(() => resetClock());

/**
 * A run of the usage sweep at `atMs` (the clock the scheduled function would read), with a minute to work. The sweep
 * keeps where it is in the table: each test starts a pass of its own, as the first run of a new UTC day does.
 */
async function sweep(atMs: number, db: DynamoDBDocumentClient = documentClient(), retentionDays?: number) {
  await testDb.send(new DeleteCommand({ TableName: COUNTERS_TABLE, Key: { customerId: SWEEP_STATE_KEY } }));
  return daySweep(db, COUNTERS_TABLE, { ownerOf: ownerOfKey, retentionDays }).run(atMs, Date.now() + 60_000);
}

const newCustomerId = () => `hist-${randomUUID().slice(0, 12)}`;

async function item(customerId: string) {
  return (await testDb.send(new GetCommand({ TableName: COUNTERS_TABLE, Key: { customerId }, ConsistentRead: true }))).Item;
}

/** A day's count still on the counter items of a customer counted on `shards` items (100,000 a minute: 4). */
async function liveDay(customerId: string, dayStart: number, shards = 4, name = dayCountName) {
  const items = await Promise.all(Array.from({ length: shards }, (_, i) => item(shardKey(customerId, i))));
  const values = items.map((it) => it?.[name(dayStart)]).filter((value) => value !== undefined);
  return values.length ? values.reduce((sum, value) => sum + value, 0) : undefined;
}

async function monthItem(customerId: string, month: string) {
  const key = { customerId: `usage#${customerId}#${month}` };
  return (await testDb.send(new GetCommand({ TableName: COUNTERS_TABLE, Key: key, ConsistentRead: true }))).Item;
}

/** The items in a random order: each is sorted by a random number of its own. */
function shuffle<T>(items: readonly T[]): T[] {
  return items
    .map((item) => ({ item, at: Math.random() }))
    .sort((a, b) => a.at - b.at)
    .map(({ item }) => item);
}

/** A request to a store as the API makes it: a refusal for a used-up window is counted (ban.ts, for the ban and the day). */
async function request(store: CounterStore, customerId: string, limits: { perMinute: number; perDay: number }, t: number) {
  const admission: Admission = await store.consume(customerId, limits, t);
  if (!admission.admitted && admission.reason === 'limit')
    await store.countRefusals(customerId, limits, 1, windowStarts(Math.floor(t / 1000)).minuteStart, t);
  return admission;
}

const tally = (admissions: Admission[]) => ({
  admitted: admissions.filter((a) => a.admitted).length,
  refused: admissions.filter((a) => !a.admitted && a.reason === 'limit').length,
  banned: admissions.filter((a) => !a.admitted && a.reason === 'banned').length,
});

/** 100 request times in the last second before `midnightMs` and 100 in the first one after it, shuffled. */
const acrossMidnight = (midnightMs: number) =>
  shuffle([
    ...Array.from({ length: 100 }, (_, i) => midnightMs - 1_000 + i * 9),
    ...Array.from({ length: 100 }, (_, i) => midnightMs + i * 9),
  ]);

describe('usage history across UTC midnight', () => {
  it('200 concurrent requests on both sides of midnight: the day recorded plus the new day equal those admitted, refusals too; two days later, four sweeps racing to move the day record it once', async () => {
    const instances = Array.from({ length: 4 }, () => dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900 }));
    const [first] = instances;
    if (!first) throw new Error('no instance');
    const customerId = newCustomerId();
    // A day limit that both days reach, a minute limit too high to ban: admissions and refusals on each side.
    const limits = { perMinute: 100_000, perDay: 70 };
    // The day before already has some requests, from earlier minutes.
    for (let i = 0; i < 5; i++) await first.consume(customerId, limits, MIDNIGHT - 3_600_000);
    const times = acrossMidnight(MIDNIGHT);
    const one = tally(await Promise.all(times.map((t, i) => request(instances[i % 4] ?? first, customerId, limits, t))));
    const admitted = one.admitted + 5;
    expect(one.banned).toBe(0);

    const [dayBefore, midnight] = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000);
    expect(dayBefore?.date).toBe('2036-03-10');
    expect(midnight?.date).toBe('2036-03-11');
    // Both days are still on the live counters, 4 items at 100,000 a minute (the day before may yet be counted into
    // by a clock a moment behind, so it is not moved yet).
    const live = await liveDay(customerId, MIDNIGHT / 1000);
    expect(live).toBe(midnight?.admitted);
    expect(await liveDay(customerId, DAY_BEFORE)).toBe(dayBefore?.admitted);
    expect((dayBefore?.admitted ?? 0) + (live ?? 0)).toBe(admitted);
    expect((dayBefore?.refused ?? 0) + (midnight?.refused ?? 0)).toBe(one.refused);
    expect(dayBefore?.admitted).toBeLessThanOrEqual(limits.perDay);
    expect(midnight?.admitted).toBeLessThanOrEqual(limits.perDay);

    // Across the next midnight the day before is final; the requests after it leave it where it is.
    const two = tally(
      await Promise.all(acrossMidnight(MIDNIGHT + DAY_MS).map((t, i) => request(instances[i % 4] ?? first, customerId, limits, t))),
    );
    expect(two.banned).toBe(0);
    expect(await liveDay(customerId, DAY_BEFORE)).toBe(dayBefore?.admitted);
    expect(await monthItem(customerId, '2036-03')).toBeUndefined();
    // Four sweeps at once (an hourly run and three by hand, say): the day is moved once.
    await testDb.send(new DeleteCommand({ TableName: COUNTERS_TABLE, Key: { customerId: SWEEP_STATE_KEY } }));
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        daySweep(documentClient(), COUNTERS_TABLE, { ownerOf: ownerOfKey }).run(MIDNIGHT + DAY_MS + 600_000, Date.now() + 60_000),
      ),
    );
    expect(runs.every((run) => run.finished && run.left === 0)).toBe(true);
    expect(await liveDay(customerId, DAY_BEFORE)).toBeUndefined();
    expect(await liveDay(customerId, DAY_BEFORE, 4, dayRefusalName)).toBeUndefined();
    expect(await monthItem(customerId, '2036-03')).toMatchObject({ a10: dayBefore?.admitted, r10: dayBefore?.refused });
    const days = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000 + DAY_SECONDS);
    expect(days[0]).toEqual(dayBefore);
    expect(days.reduce((sum, d) => sum + d.admitted, 0)).toBe(admitted + two.admitted);
    expect(days.reduce((sum, d) => sum + d.refused, 0)).toBe(one.refused + two.refused);
  });

  it('through the real chain, the clock moved across midnight while 200 requests are in flight', async () => {
    const customerId = newCustomerId();
    const authorizer = {
      principalId: customerId,
      customerId,
      keyId: 'key_0000000000000000',
      plan: 'enterprise',
      perMinute: '100000',
      perDay: '1000000',
    };
    // Each request reads the time it was sent at, whenever the chain reads the clock and whatever else is in flight
    // (a request's own work, and what it leaves running, carries its time); anything else reads the latest.
    const sentAt = new AsyncLocalStorage<number>();
    let now = MIDNIGHT - 400;
    setClock(() => sentAt.getStore() ?? now);
    const send = async (count: number, at: (i: number) => number) => {
      const inFlight: Promise<Answer>[] = [];
      for (let i = 0; i < count; i++) {
        now = at(i);
        inFlight.push(sentAt.run(now, () => invoke(listCategories, proxyEvent({ authorizer }))));
      }
      return (await Promise.all(inFlight)).map((a) => a.status);
    };
    const statuses = await send(200, (i) => (i < 100 ? MIDNIGHT - 400 : MIDNIGHT + 400));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    const days = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000);
    expect(days.reduce((sum, d) => sum + d.admitted, 0)).toBe(200);
    // What the day before holds, plus the live count of the new day.
    expect((days[0]?.admitted ?? 0) + ((await liveDay(customerId, MIDNIGHT / 1000)) ?? 0)).toBe(200);

    // Two days later the sweep moves the day before to the history while 50 more requests are in flight on the same
    // items (a request's write that meets the move's transaction goes round again).
    const [statuses2] = await Promise.all([send(50, () => MIDNIGHT + DAY_MS + 400), sweep(MIDNIGHT + DAY_MS + 400)]);
    expect(statuses2).toEqual(Array(50).fill(200));
    // Each of the 4 items moved its part.
    expect(await liveDay(customerId, DAY_BEFORE)).toBeUndefined();
    expect((await monthItem(customerId, '2036-03'))?.a10).toBe(days[0]?.admitted || undefined);
    const after = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000 + DAY_SECONDS);
    expect(after.map((d) => d.admitted)).toEqual([days[0]?.admitted, days[1]?.admitted, 50]);
  });
});

describe('a move to the history in flight (DynamoDB Local never reports one: injected)', () => {
  it('writes refused while it holds the item, and a move cancelled by a conflict, go round again: still exact', async () => {
    const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
    const injected = { updates: 0, transactions: 0 };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const $metadata = {};
        // The requests' writes, not the sweep's note of where it is.
        const request = !JSON.stringify(args.input).includes(SWEEP_STATE_KEY);
        if (context.commandName === 'UpdateItemCommand' && request && injected.updates < 6) {
          injected.updates++;
          throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata });
        }
        if (context.commandName === 'TransactWriteItemsCommand' && injected.transactions < 2) {
          injected.transactions++;
          throw new TransactionCanceledException({
            message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
            $metadata,
            CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'injectConflicts' },
    );
    const db = createDocumentClient(client);
    const limiter = dynamoRateLimiter(db, COUNTERS_TABLE, { banSeconds: 900 });
    const customerId = newCustomerId();
    const limits = { perMinute: 100_000, perDay: 1_000_000 };
    injected.updates = 6;
    for (let i = 0; i < 4; i++) await limiter.consume(customerId, limits, MIDNIGHT - 1_000);
    injected.updates = 0;
    // Two days later: the day is final; the sweep moves it while requests are admitted on the same items.
    const later = MIDNIGHT + DAY_MS;
    const [admissions, run] = await Promise.all([
      Promise.all(Array.from({ length: 28 }, (_, i) => limiter.consume(customerId, limits, later + i))),
      sweep(later, db),
    ]);
    expect(admissions.every((a) => a.admitted)).toBe(true);
    expect(run).toMatchObject({ finished: true, left: 0 });
    expect(injected).toEqual({ updates: 6, transactions: 2 });
    const [dayBefore] = await history.days(customerId, DAY_BEFORE, DAY_BEFORE);
    expect(dayBefore?.admitted).toBe(4);
    expect((await monthItem(customerId, '2036-03'))?.a10).toBe(4);
    expect(await liveDay(customerId, DAY_BEFORE)).toBeUndefined();
    expect(await liveDay(customerId, later / 1000)).toBe(28);
    client.destroy();
  });
});

describe('usage history items', () => {
  it('a request never moves a day; the sweep moves every finished one, even days later, and idle days are zero', async () => {
    const limiter = dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900, usageRetentionDays: 30 });
    const customerId = newCustomerId();
    const limits = { perMinute: 1_000, perDay: 10_000 };
    for (let i = 0; i < 7; i++) await limiter.consume(customerId, limits, MIDNIGHT - 60_000);
    // The next day: the day before stays on the counter (not final yet), and readers take it from there.
    await limiter.consume(customerId, limits, MIDNIGHT + 5_000);
    expect(await monthItem(customerId, '2036-03')).toBeUndefined();
    expect(await history.days(customerId, DAY_BEFORE, DAY_BEFORE)).toEqual([{ date: '2036-03-10', admitted: 7, refused: 0 }]);
    await limiter.consume(customerId, limits, MIDNIGHT + 3 * DAY_MS + 5_000);
    // Three days on, the requests have left both finished days on the counter item: the sweep moves them.
    expect(await monthItem(customerId, '2036-03')).toBeUndefined();
    expect(await sweep(MIDNIGHT + 3 * DAY_MS + 600_000, documentClient(), 30)).toMatchObject({ finished: true, left: 0 });

    const rows = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000 + 3 * DAY_SECONDS);
    expect(rows).toEqual([
      { date: '2036-03-10', admitted: 7, refused: 0 },
      { date: '2036-03-11', admitted: 1, refused: 0 },
      { date: '2036-03-12', admitted: 0, refused: 0 },
      { date: '2036-03-13', admitted: 0, refused: 0 },
      { date: '2036-03-14', admitted: 1, refused: 0 },
    ]);
    // One item per month, the day's totals as aDD/rDD, kept for the retention after the month ends.
    expect(await monthItem(customerId, '2036-03')).toEqual({
      customerId: `usage#${customerId}#2036-03`,
      a10: 7,
      a11: 1,
      expiresAt: Date.UTC(2036, 3, 1) / 1000 + 30 * DAY_SECONDS,
    });
    // The counter holds the days not moved yet, so it lives the retention after its last day.
    const live = await item(customerId);
    expect(live?.expiresAt).toBe(MIDNIGHT / 1000 + 3 * DAY_SECONDS + 31 * DAY_SECONDS);
    expect(Object.keys(live ?? {}).filter((name) => /^[dx]\d+$/.test(name))).toEqual([dayCountName(MIDNIGHT / 1000 + 3 * DAY_SECONDS)]);
  });

  it("a ban keeps the counter's TTL, so a banned customer's last day is still there to be recorded", async () => {
    const limiter = refusalCache(dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900 }), { schedule: () => {} });
    const customerId = newCustomerId();
    const limits = { perMinute: 2, perDay: 100 };
    const at = MIDNIGHT - 600_000;
    const admissions = [];
    for (let i = 0; i < 13; i++) admissions.push(await limiter.consume(customerId, limits, at));
    expect(admissions.at(-1)).toMatchObject({ admitted: false, reason: 'banned' });
    expect(await item(customerId)).toMatchObject({
      [dayCountName(DAY_BEFORE)]: 2,
      [dayRefusalName(DAY_BEFORE)]: 10,
      expiresAt: DAY_BEFORE + 401 * DAY_SECONDS,
    });
    expect(await history.days(customerId, DAY_BEFORE, DAY_BEFORE)).toEqual([{ date: '2036-03-10', admitted: 2, refused: 10 }]);
  });

  it('a month sums each customer over its days, the live day included', async () => {
    const limiter = refusalCache(dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900 }), { schedule: () => {} });
    const [a, b, idle] = [newCustomerId(), newCustomerId(), newCustomerId()];
    const limits = { perMinute: 1_000, perDay: 3 };
    // a: 3 admitted and 2 refused on the 10th, 1 on the 11th (live); b: 2 on the 31st of March, 1 on April 1st.
    for (let i = 0; i < 5; i++) await limiter.consume(a, limits, MIDNIGHT - 60_000);
    await limiter.consume(a, limits, MIDNIGHT + 60_000);
    const lastOfMarch = Date.UTC(2036, 2, 31, 12);
    for (let i = 0; i < 2; i++) await limiter.consume(b, limits, lastOfMarch);
    await limiter.consume(b, limits, Date.UTC(2036, 3, 1, 0, 0, 1));
    await limiter.flushAll();

    expect(await history.month([a, b, idle], '2036-03')).toEqual([
      { customerId: a, admitted: 4, refused: 2, activeDays: 2 },
      { customerId: b, admitted: 2, refused: 0, activeDays: 1 },
      { customerId: idle, admitted: 0, refused: 0, activeDays: 0 },
    ]);
    expect(await history.month([b], '2036-04')).toEqual([{ customerId: b, admitted: 1, refused: 0, activeDays: 1 }]);
    // Two days into April, the sweep moves b's 31st of March to its March item; the month reads the same.
    await sweep(Date.UTC(2036, 3, 2, 0, 10));
    expect(await monthItem(b, '2036-03')).toMatchObject({ a31: 2 });
    expect(await history.month([b], '2036-03')).toEqual([{ customerId: b, admitted: 2, refused: 0, activeDays: 1 }]);
  });

  it('a customer counted on several items: each item moves its part of a day, and readers sum them all', async () => {
    const limiter = dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900, itemCapacityPerMinute: 10 });
    const customerId = newCustomerId();
    const limits = { perMinute: 40, perDay: 1_000 };
    const day = await Promise.all(Array.from({ length: 40 }, () => limiter.consume(customerId, limits, MIDNIGHT - 60_000)));
    expect(day.every((a) => a.admitted)).toBe(true);
    const shards = await Promise.all([0, 1, 2, 3].map((i) => item(shardKey(customerId, i))));
    expect(shards.map((s) => s?.[dayCountName(DAY_BEFORE)])).toEqual([10, 10, 10, 10]);
    expect(await history.days(customerId, DAY_BEFORE, DAY_BEFORE)).toEqual([{ date: '2036-03-10', admitted: 40, refused: 0 }]);
    // Two days later the sweep moves each item's part; the total is the same throughout.
    for (let i = 0; i < 6; i++) await limiter.consume(customerId, limits, MIDNIGHT + DAY_MS + 1_000);
    expect(await monthItem(customerId, '2036-03')).toBeUndefined();
    expect((await history.days(customerId, DAY_BEFORE, DAY_BEFORE))[0]?.admitted).toBe(40);
    expect(await sweep(MIDNIGHT + DAY_MS + 600_000)).toMatchObject({ finished: true, left: 0 });
    expect((await monthItem(customerId, '2036-03'))?.a10).toBe(40);
    expect(await liveDay(customerId, DAY_BEFORE)).toBeUndefined();
    expect(await history.month([customerId], '2036-03')).toEqual([{ customerId, admitted: 46, refused: 0, activeDays: 2 }]);
  });
});
