/**
 * The usage sweep (lib/usage/day-sweep.ts, functions/usage-sweep.ts) against DynamoDB Local: it moves every finished
 * day of every counter item to the history exactly once, leaves other items alone, keeps to its time budget and
 * goes on where the last run stopped; and, should it stop running, a counter item still stays bounded.
 */
import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/usage-sweep.js';
import { lambdaContext } from '../../infra/local/events.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { createDocumentClient, createDynamoClient, documentClient } from '../../lib/dynamo/client.js';
import { dayCountName, dayRefusalName } from '../../lib/rate-limit/counter-item.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { ownerOfKey, shardKey } from '../../lib/rate-limit/shards.js';
import { retainUntil } from '../../lib/usage/day-counts.js';
import { daySweep, SWEEP_STATE_KEY, type SweepRun } from '../../lib/usage/day-sweep.js';
import { DAY_SECONDS } from '../../lib/usage/days.js';
import { usageHistory } from '../../lib/usage/history.js';
import { testDb } from '../support/customers.js';

const TABLE = process.env.COUNTERS_TABLE ?? '';
/** 2036-03-20 00:10 UTC, the first run of that day; in the future, as DynamoDB Local applies the TTL to the real clock. */
const RUN_AT = Date.UTC(2036, 2, 20, 0, 10);
const TODAY = Date.UTC(2036, 2, 20) / 1000;
const day = (daysBefore: number) => TODAY - daysBefore * DAY_SECONDS;
const EXPIRES = TODAY + 400 * DAY_SECONDS;
/** A run's deadline, a minute from when it starts (the real clock: the sweep stops for the function's timeout). */
const minuteLater = () => Date.now() + 60_000;

const sweepOf = (options: Partial<Parameters<typeof daySweep>[2]> = {}) =>
  daySweep(documentClient(), TABLE, { ownerOf: ownerOfKey, ...options });
const history = usageHistory(documentClient(), TABLE, { counterKeys: (id) => [id, shardKey(id, 1)] });

async function put(item: Record<string, unknown>) {
  await testDb.send(new PutCommand({ TableName: TABLE, Item: item }));
}
async function get(key: string) {
  return (await testDb.send(new GetCommand({ TableName: TABLE, Key: { customerId: key }, ConsistentRead: true }))).Item;
}
async function allItems() {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await testDb.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
/** Empties the table: each test starts from nothing, the sweep's own item included. */
async function clear() {
  for (const item of await allItems()) await testDb.send(new DeleteCommand({ TableName: TABLE, Key: { customerId: item.customerId } }));
}

beforeEach(clear);
afterEach(() => resetClock());

describe('the usage sweep', () => {
  it("moves the days before yesterday of every counter item, a sharded customer's too, once; leaves today, yesterday and other items", async () => {
    await put({
      customerId: 'acme',
      [dayCountName(day(3))]: 30,
      [dayRefusalName(day(3))]: 2,
      [dayCountName(day(2))]: 20,
      [dayCountName(day(1))]: 10,
      [dayCountName(day(0))]: 1,
      m2089584000: 1,
      expiresAt: EXPIRES,
    });
    await put({ customerId: shardKey('acme', 1), [dayCountName(day(2))]: 5, expiresAt: EXPIRES });
    // The TTL a history month gets: the retention after the month's last day.
    const history17 = { customerId: 'usage#acme#2036-03', a16: 4, expiresAt: retainUntil(Date.UTC(2036, 2, 31) / 1000, 400) };
    const deprecated = { customerId: 'deprecated#acme', count_getPetById: 4, last_getPetById: '2036-03-18T09:00:00.000Z' };
    await put(history17);
    await put(deprecated);
    const before = await history.days('acme', day(4), day(0));

    const run = await sweepOf().run(RUN_AT, minuteLater());
    expect(run).toMatchObject({ pass: '2036-03-20', finished: true, items: 4, moved: 4, left: 0 });
    expect(await get('acme')).toEqual({
      customerId: 'acme',
      [dayCountName(day(1))]: 10,
      [dayCountName(day(0))]: 1,
      m2089584000: 1,
      expiresAt: EXPIRES,
    });
    expect(await get(shardKey('acme', 1))).toEqual({ customerId: shardKey('acme', 1), expiresAt: EXPIRES });
    expect(await get('usage#acme#2036-03')).toEqual({ ...history17, a17: 30, r17: 2, a18: 25 });
    expect(await get('deprecated#acme')).toEqual(deprecated);
    // Readers see the same days before and after.
    expect(await history.days('acme', day(4), day(0))).toEqual(before);
    // A second run the same day has nothing to do: it reads its own item and stops.
    expect(await sweepOf().run(RUN_AT + 3_600_000, minuteLater())).toMatchObject({ finished: true, pages: 0, moved: 0 });
    expect(await get('usage#acme#2036-03')).toEqual({ ...history17, a17: 30, r17: 2, a18: 25 });
  });

  it('an item holding more days than one move takes is emptied by several moves; months go to their own history items', async () => {
    const days = Array.from({ length: 40 }, (_, i) => day(i + 2));
    await put({ customerId: 'busy', ...Object.fromEntries(days.map((d, i) => [dayCountName(d), i + 1])), expiresAt: EXPIRES });
    const run = await sweepOf().run(RUN_AT, minuteLater());
    expect(run).toMatchObject({ finished: true, moved: 40, left: 0 });
    expect(await get('busy')).toEqual({ customerId: 'busy', expiresAt: EXPIRES });
    const total = (await history.days('busy', day(41), day(2))).reduce((sum, row) => sum + row.admitted, 0);
    expect(total).toBe((40 * 41) / 2);
    expect(Object.keys((await get('usage#busy#2036-02')) ?? {}).length).toBeGreaterThan(2);
  });

  it('a run whose deadline has passed reads nothing and leaves its place as it was', async () => {
    await put({ customerId: 'late', [dayCountName(day(5))]: 3, expiresAt: EXPIRES });
    expect(await sweepOf().run(RUN_AT, Date.now() - 1)).toMatchObject({ finished: false, pages: 0, moved: 0 });
    expect(await get(SWEEP_STATE_KEY)).toBeUndefined();
    expect((await get('late'))?.[dayCountName(day(5))]).toBe(3);
  });

  it('stops at its deadline after a page and the next run goes on from there; the pass moves every day exactly once', async () => {
    const customers = Array.from({ length: 6 }, (_, i) => `page-${i}`);
    for (const [i, id] of customers.entries()) await put({ customerId: id, [dayCountName(day(2))]: i + 1, expiresAt: EXPIRES });
    // The wall clock passes the deadline once a page is done: when the sweep writes where it is.
    let wall = 0;
    const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
    client.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        if (JSON.stringify(args.input).includes(SWEEP_STATE_KEY) && JSON.stringify(args.input).includes('passDay')) wall = 100;
        return result;
      },
      { step: 'initialize', name: 'deadlineAfterPage' },
    );
    const db = createDocumentClient(client);
    const runs: SweepRun[] = [];
    for (let i = 0; i < 10 && !runs.at(-1)?.finished; i++) {
      wall = 0;
      runs.push(await daySweep(db, TABLE, { ownerOf: ownerOfKey, pageSize: 2, wallClock: () => wall }).run(RUN_AT + i * 3_600_000, 100));
    }
    client.destroy();
    expect(runs.every((run) => run.pages === 1)).toBe(true);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.at(-1)?.finished).toBe(true);
    expect(runs.reduce((sum, run) => sum + run.moved, 0)).toBe(6);
    expect(runs.every((run) => run.pass === '2036-03-20')).toBe(true);
    for (const [i, id] of customers.entries()) {
      expect((await history.days(id, day(2), day(2)))[0]?.admitted).toBe(i + 1);
      expect(await get(`usage#${id}#2036-03`)).toMatchObject({ a18: i + 1 });
    }
  });

  it('a move that times out leaves its item for a later pass; the run goes on with the others and ends', async () => {
    await put({ customerId: 'slow', [dayCountName(day(2))]: 4, expiresAt: EXPIRES });
    await put({ customerId: 'quick', [dayCountName(day(2))]: 5, expiresAt: EXPIRES });
    const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
    client.middlewareStack.add(
      (next) => async (args) => {
        if (JSON.stringify(args.input).includes('"slow"') && 'TransactItems' in args.input) {
          throw Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'slowMove' },
    );
    const run = await daySweep(createDocumentClient(client), TABLE, { ownerOf: ownerOfKey }).run(RUN_AT, minuteLater());
    client.destroy();
    expect(run).toMatchObject({ finished: true, moved: 1, left: 1 });
    expect(await get('slow')).toMatchObject({ [dayCountName(day(2))]: 4 });
    expect((await history.days('quick', day(2), day(2)))[0]?.admitted).toBe(5);
  });

  it('a page cut short by the deadline is read again by the next run, and nothing is moved twice', async () => {
    for (let i = 0; i < 4; i++) await put({ customerId: `cut-${i}`, [dayCountName(day(2))]: 10 + i, expiresAt: EXPIRES });
    let calls = 0;
    // The deadline passes in the middle of the first page: after the second item's move was under way.
    const first = await sweepOf({ pageSize: 4, parallel: 1, wallClock: () => (calls++ < 3 ? 0 : 100) }).run(RUN_AT, 100);
    expect(first).toMatchObject({ finished: false, pages: 1 });
    expect(first.moved).toBeGreaterThan(0);
    expect(first.moved).toBeLessThan(4);
    expect(first.left).toBeGreaterThan(0);
    const state = await get(SWEEP_STATE_KEY);
    expect(state?.after).toBeUndefined();
    const second = await sweepOf().run(RUN_AT + 3_600_000, minuteLater());
    expect(second).toMatchObject({ finished: true, left: 0 });
    expect(first.moved + second.moved).toBe(4);
    for (let i = 0; i < 4; i++) expect(await get(`usage#cut-${i}#2036-03`)).toMatchObject({ a18: 10 + i });
  });
});

describe('the usage sweep function', () => {
  it('with less time left than its reserve it does nothing; with time it sweeps and says what it did', async () => {
    await put({ customerId: 'fn', [dayCountName(day(2))]: 7, expiresAt: EXPIRES });
    setClock(() => RUN_AT);
    const short = await handler({}, lambdaContext('usageSweep', 'sweep-1', 10_000));
    expect(short).toMatchObject({ finished: false, pages: 0 });
    expect((await get('fn'))?.[dayCountName(day(2))]).toBe(7);
    const full = await handler({}, lambdaContext('usageSweep', 'sweep-2', 300_000));
    expect(full).toMatchObject({ pass: '2036-03-20', finished: true, moved: 1, left: 0 });
    expect(await get('usage#fn#2036-03')).toMatchObject({ a18: 7 });
  });
});

describe('while the sweep does not run', () => {
  it("no request moves a day; a day older than the retention leaves the item with the next requests' writes", async () => {
    const limiter = dynamoRateLimiter(documentClient(), TABLE, { banSeconds: 900, usageRetentionDays: 5 });
    const limits = { perMinute: 100, perDay: 1_000 };
    const first = Date.UTC(2036, 2, 1, 12);
    for (let d = 0; d < 10; d++) await limiter.consume('unswept', limits, first + d * DAY_SECONDS * 1000);
    const names = async () =>
      Object.keys((await get('unswept')) ?? {})
        .filter((name) => /^d\d+$/.test(name))
        .sort();
    // Ten days, no sweep: nothing in the history, and only the days the history would still keep on the item (the
    // retention, 5 days, after each day ends), the oldest removed in passing by the writes that admit requests.
    expect(await get('usage#unswept#2036-03')).toBeUndefined();
    const kept = await names();
    expect(kept.length).toBeLessThanOrEqual(7);
    expect(kept.length).toBeGreaterThanOrEqual(5);
    expect(kept.at(-1)).toBe(dayCountName(Date.UTC(2036, 2, 10) / 1000));
  });
});
