/**
 * The daily usage history (lib/usage/history.ts): written by the rollover that ends a day, exact under concurrency
 * across UTC midnight, refusals counted beside admissions, kept for the retention, read back by day and by month.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as listCategories } from '../../functions/list-categories.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/create-client.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { DAY_SECONDS } from '../../lib/usage/days.js';
import { usageHistory } from '../../lib/usage/history.js';
import { testDb } from '../support/customers.js';
import { type Answer, invoke, proxyEvent } from '../support/events.js';

const COUNTERS_TABLE = process.env.COUNTERS_TABLE ?? '';
const history = usageHistory(documentClient(), COUNTERS_TABLE);

/**
 * Midnight between 2036-03-10 and 2036-03-11 UTC: in the future, as DynamoDB Local applies the counters' TTL to the
 * real clock.
 */
const MIDNIGHT = Date.UTC(2036, 2, 11);
const DAY_BEFORE = MIDNIGHT / 1000 - DAY_SECONDS;

afterEach(() => resetClock());

const newCustomerId = () => `hist-${randomUUID().slice(0, 12)}`;

async function item(customerId: string) {
  return (await testDb.send(new GetCommand({ TableName: COUNTERS_TABLE, Key: { customerId }, ConsistentRead: true }))).Item;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

describe('usage history across UTC midnight', () => {
  it('200 concurrent requests on both sides of midnight: the day recorded plus the new day equal those admitted, refusals too', async () => {
    const limiter = dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900 });
    const customerId = newCustomerId();
    // A day limit that both days reach, a minute limit too high to ban: admissions and refusals on each side.
    const limits = { perMinute: 100_000, perDay: 70 };
    // The day before already has some requests, from earlier minutes.
    for (let i = 0; i < 5; i++) await limiter.consume(customerId, limits, MIDNIGHT - 3_600_000);
    const times = shuffle([
      ...Array.from({ length: 100 }, (_, i) => MIDNIGHT - 1_000 + i * 9),
      ...Array.from({ length: 100 }, (_, i) => MIDNIGHT + i * 9),
    ]);
    const admissions = await Promise.all(times.map((t) => limiter.consume(customerId, limits, t)));
    const admitted = admissions.filter((a) => a.admitted).length + 5;
    const refused = admissions.filter((a) => !a.admitted && a.reason === 'limit').length;
    expect(admissions.filter((a) => !a.admitted && a.reason === 'banned')).toEqual([]);

    const [dayBefore, midnight] = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000);
    expect(dayBefore?.date).toBe('2036-03-10');
    expect(midnight?.date).toBe('2036-03-11');
    // The day before was closed by a rollover (it is in the history item); the new day is the live counter's.
    const live = await item(customerId);
    expect(live).toMatchObject({ d: MIDNIGHT / 1000, dc: midnight?.admitted });
    expect((dayBefore?.admitted ?? 0) + (live?.dc ?? 0)).toBe(admitted);
    expect((dayBefore?.refused ?? 0) + (midnight?.refused ?? 0)).toBe(refused);
    expect(dayBefore?.admitted).toBeLessThanOrEqual(limits.perDay);
    expect(midnight?.admitted).toBeLessThanOrEqual(limits.perDay);
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
    let now = MIDNIGHT - 400;
    setClock(() => now);
    const inFlight: Promise<Answer>[] = [];
    for (let i = 0; i < 200; i++) {
      if (i === 100) now = MIDNIGHT + 400;
      inFlight.push(invoke(listCategories, proxyEvent({ authorizer })));
    }
    const answers = await Promise.all(inFlight);
    const admitted = answers.filter((a) => a.status === 200).length;
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    expect(admitted).toBe(200);

    const days = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000);
    const live = await item(customerId);
    expect(live?.d).toBe(MIDNIGHT / 1000);
    expect(days.reduce((sum, d) => sum + d.admitted, 0)).toBe(admitted);
    // What the history recorded for the day before, plus the live count of the new day.
    expect((days[0]?.admitted ?? 0) + (live?.dc ?? 0)).toBe(admitted);
  });
});

describe('a rollover transaction in flight (DynamoDB Local never reports one: injected)', () => {
  it('writes refused while it holds the item, and a rollover cancelled by a conflict, go round again: still exact', async () => {
    const client = createDynamoClient(process.env.DYNAMODB_ENDPOINT);
    const injected = { updates: 0, transactions: 0 };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const $metadata = {};
        if (context.commandName === 'UpdateItemCommand' && injected.updates < 6) {
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
    const limiter = dynamoRateLimiter(createDocumentClient(client), COUNTERS_TABLE, { banSeconds: 900 });
    const customerId = newCustomerId();
    const limits = { perMinute: 100_000, perDay: 1_000_000 };
    injected.updates = 6;
    for (let i = 0; i < 4; i++) await limiter.consume(customerId, limits, MIDNIGHT - 1_000);
    injected.updates = 0;
    const admissions = await Promise.all(Array.from({ length: 20 }, (_, i) => limiter.consume(customerId, limits, MIDNIGHT + i)));
    expect(admissions.every((a) => a.admitted)).toBe(true);
    expect(injected).toEqual({ updates: 6, transactions: 2 });
    const [dayBefore] = await history.days(customerId, DAY_BEFORE, DAY_BEFORE);
    expect(dayBefore?.admitted).toBe(4);
    expect((await item(customerId))?.dc).toBe(20);
    client.destroy();
  });
});

describe('usage history items', () => {
  it('a day is recorded by the first request of a later day, even days later, and idle days are zero', async () => {
    const limiter = dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900, usageRetentionDays: 30 });
    const customerId = newCustomerId();
    const limits = { perMinute: 1_000, perDay: 10_000 };
    for (let i = 0; i < 7; i++) await limiter.consume(customerId, limits, MIDNIGHT - 60_000);
    await limiter.consume(customerId, limits, MIDNIGHT + 3 * DAY_SECONDS * 1000 + 5_000);

    const rows = await history.days(customerId, DAY_BEFORE, MIDNIGHT / 1000 + 3 * DAY_SECONDS);
    expect(rows).toEqual([
      { date: '2036-03-10', admitted: 7, refused: 0 },
      { date: '2036-03-11', admitted: 0, refused: 0 },
      { date: '2036-03-12', admitted: 0, refused: 0 },
      { date: '2036-03-13', admitted: 0, refused: 0 },
      { date: '2036-03-14', admitted: 1, refused: 0 },
    ]);
    // One item per month, the day's totals as aDD/rDD, kept for the retention after the month ends.
    const month = await testDb.send(
      new GetCommand({ TableName: COUNTERS_TABLE, Key: { customerId: `usage#${customerId}#2036-03` }, ConsistentRead: true }),
    );
    expect(month.Item).toEqual({
      customerId: `usage#${customerId}#2036-03`,
      a10: 7,
      expiresAt: Date.UTC(2036, 3, 1) / 1000 + 30 * DAY_SECONDS,
    });
    // The live counter holds the day until its rollover, so it lives as long as the history.
    expect((await item(customerId))?.expiresAt).toBe(MIDNIGHT / 1000 + 3 * DAY_SECONDS + 31 * DAY_SECONDS);
  });

  it("a ban keeps the counter's TTL, so a banned customer's last day is still there to be recorded", async () => {
    const limiter = dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900 });
    const customerId = newCustomerId();
    const limits = { perMinute: 2, perDay: 100 };
    const at = MIDNIGHT - 600_000;
    const admissions = [];
    for (let i = 0; i < 13; i++) admissions.push(await limiter.consume(customerId, limits, at));
    expect(admissions.at(-1)).toMatchObject({ admitted: false, reason: 'banned' });
    expect(await item(customerId)).toMatchObject({ dc: 2, rdc: 10, expiresAt: DAY_BEFORE + 401 * DAY_SECONDS });
    expect(await history.days(customerId, DAY_BEFORE, DAY_BEFORE)).toEqual([{ date: '2036-03-10', admitted: 2, refused: 10 }]);
  });

  it('a month sums each customer over its days, the live day included', async () => {
    const limiter = dynamoRateLimiter(documentClient(), COUNTERS_TABLE, { banSeconds: 900 });
    const [a, b, idle] = [newCustomerId(), newCustomerId(), newCustomerId()];
    const limits = { perMinute: 1_000, perDay: 3 };
    // a: 3 admitted and 2 refused on the 10th, 1 on the 11th (live); b: 2 on the 31st of March, 1 on April 1st.
    for (let i = 0; i < 5; i++) await limiter.consume(a, limits, MIDNIGHT - 60_000);
    await limiter.consume(a, limits, MIDNIGHT + 60_000);
    const lastOfMarch = Date.UTC(2036, 2, 31, 12);
    for (let i = 0; i < 2; i++) await limiter.consume(b, limits, lastOfMarch);
    await limiter.consume(b, limits, Date.UTC(2036, 3, 1, 0, 0, 1));

    expect(await history.month([a, b, idle], '2036-03')).toEqual([
      { customerId: a, admitted: 4, refused: 2, activeDays: 2 },
      { customerId: b, admitted: 2, refused: 0, activeDays: 1 },
      { customerId: idle, admitted: 0, refused: 0, activeDays: 0 },
    ]);
    expect(await history.month([b], '2036-04')).toEqual([{ customerId: b, admitted: 1, refused: 0, activeDays: 1 }]);
  });
});
