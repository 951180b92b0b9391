/**
 * The plan limits of the interface (docs/api.md, "Rate limits") through the real Middy chain against DynamoDB Local, with the clock moved across
 * minute and day boundaries: exact counts, headers on every response, 429 with Retry-After, bans.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as createCategory } from '../../functions/create-category.js';
import { handler as getPetById } from '../../functions/get-pet-by-id.js';
import { handler as getRateLimitStatus } from '../../functions/get-rate-limit-status.js';
import { handler as listCategories } from '../../functions/list-categories.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { config, setConfig } from '../../lib/config.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { PLAN_LIMITS, type Plan } from '../../lib/plans.js';
import { banThreshold } from '../../lib/rate-limit/ban.js';
import { callCountName, dayCountName, minuteCountName } from '../../lib/rate-limit/counter-item.js';
import { deprecatedCallStore } from '../../lib/rate-limit/deprecated-calls.js';
import { banLifter } from '../../lib/rate-limit/lift-ban.js';
import { counterKeys, ITEM_CAPACITY_PER_MINUTE, shardCount, shardKey } from '../../lib/rate-limit/shards.js';
import { windowStarts } from '../../lib/rate-limit/windows.js';
import { usageHistory } from '../../lib/usage/history.js';
import { errorBody, sentHeaders } from '../support/answer.js';
import { storedCounts } from '../support/counters.js';
import { testDb } from '../support/customers.js';
import { type Answer, invoke, proxyEvent } from '../support/events.js';

// The clock below is years ahead; keep GET /pets/{petId} before its sunset for the deprecated-call count.
beforeAll(() => setConfig({ ...config(), PETS_SUNSET_AT: '2099-01-01T00:00:00Z' }));
afterAll(() => setConfig(undefined));
const COUNTERS_TABLE = process.env.COUNTERS_TABLE ?? '';
const deprecatedCalls = deprecatedCallStore(documentClient(), COUNTERS_TABLE);
const storedItem = async (customerId: string) =>
  (await documentClient().send(new GetCommand({ TableName: COUNTERS_TABLE, Key: { customerId }, ConsistentRead: true }))).Item;

/**
 * 2036-03-10 12:34:00 UTC: a minute start, well inside a day, and in the future: DynamoDB Local applies the
 * counters' TTL, so a clock in the past would see its counter items deleted under it.
 */
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
const DAY_START = Date.UTC(2036, 2, 10) / 1000;
let now = T0;
setClock(() => now);
afterEach(() => {
  now = T0;
});

function customer(plan: Plan, limits = plan === 'enterprise' ? { perMinute: 5, perDay: 50 } : PLAN_LIMITS[plan]) {
  const customerId = `rl-${plan}-${randomUUID().slice(0, 8)}`;
  const authorizer = {
    principalId: customerId,
    customerId,
    keyId: 'key_0000000000000000',
    plan,
    perMinute: String(limits.perMinute),
    perDay: String(limits.perDay),
  };
  return {
    customerId,
    limits,
    list: () => invoke(listCategories, proxyEvent({ authorizer })),
    status: () => invoke(getRateLimitStatus, proxyEvent({ path: '/rate-limit', authorizer })),
  };
}

/** The customer's stored counts in the minute and day of the test clock. */
const counts = (customerId: string) => storedCounts(customerId, now);

async function times(n: number, fn: () => Promise<Answer>): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}

describe('per-minute limits of each plan, at the boundary', () => {
  it.each(['free', 'pro', 'business'] as const)(
    '%s: the limit-th request is admitted, the next refused until the next minute',
    async (plan) => {
      const c = customer(plan);
      now = T0 + 10_000;
      const answers = await times(c.limits.perMinute, c.list);
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers.at(-1)?.headers.get('X-RateLimit-Remaining')).toBe('0');

      const refused = await c.list();
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        code: 'RATE_LIMIT_EXCEEDED',
        message: expect.stringMatching(new RegExp(`${c.limits.perMinute} requests per minute`)),
        status: 429,
      });
      expect(refused.headers.get('Retry-After')).toBe('50');
      expect(refused.headers.get('X-RateLimit-Limit')).toBe(String(c.limits.perMinute));
      expect(refused.headers.get('X-RateLimit-Remaining')).toBe('0');
      expect(refused.headers.get('X-RateLimit-Reset')).toBe(String(T0 / 1000 + 60));

      now = T0 + 60_000;
      const next = await c.list();
      expect(next.status).toBe(200);
      expect((await counts(c.customerId)).day).toBe(c.limits.perMinute + 1);
    },
  );
});

describe('per-day limits', () => {
  it.each(['free', 'pro', 'business'] as const)('%s: the day limit holds across minutes and resets at the UTC day', async (plan) => {
    const c = customer(plan);
    // The day's count so far, as earlier minutes left it: one below the limit.
    await testDb.send(
      new PutCommand({
        TableName: process.env.COUNTERS_TABLE,
        Item: { customerId: c.customerId, [minuteCountName(T0 / 1000 - 60)]: 3, [dayCountName(DAY_START)]: c.limits.perDay - 1 },
      }),
    );
    const last = await c.list();
    expect(last.status).toBe(200);
    expect(last.headers.get('X-RateLimit-Remaining')).toBe('0');
    expect(last.headers.get('X-RateLimit-Limit')).toBe(String(c.limits.perDay));

    now = T0 + 5 * 60_000;
    const refused = await c.list();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('X-RateLimit-Reset')).toBe(String(DAY_START + 86_400));
    expect(Number(refused.headers.get('Retry-After'))).toBe(DAY_START + 86_400 - (T0 + 5 * 60_000) / 1000);
    expect(refused.body).toMatchObject({ message: expect.stringMatching(/per day/) });

    now = (DAY_START + 86_400) * 1000 + 1_000;
    expect((await c.list()).status).toBe(200);
    expect(await counts(c.customerId)).toMatchObject({ day: 1, minute: 1 });
  });

  it('a refused request does not count', async () => {
    const c = customer('enterprise');
    await times(5, c.list);
    await times(3, c.list);
    expect(await counts(c.customerId)).toMatchObject({ minute: 5, day: 5 });
  });
});

describe('rate-limit headers on every response', () => {
  it('X-RateLimit-* describe the window with the fewest requests left; RateLimit-Policy and RateLimit both windows', async () => {
    const c = customer('free');
    now = T0 + 15_000;
    const first = await c.list();
    expect(sentHeaders(first)).toMatchObject({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': String(T0 / 1000 + 60),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: `"minute";r=59;t=45, "day";r=999;t=${DAY_START + 86_400 - (T0 + 15_000) / 1000}`,
    });
  });

  it('on a tie the day window is shown', async () => {
    const c = customer('enterprise', { perMinute: 10, perDay: 10 });
    const answer = await c.list();
    expect(answer.headers.get('X-RateLimit-Remaining')).toBe('9');
    expect(answer.headers.get('X-RateLimit-Reset')).toBe(String(DAY_START + 86_400));
  });

  it('errors carry them too: a 400 after admission counts and shows the count', async () => {
    const c = customer('free');
    const authorizer = { customerId: c.customerId, keyId: 'key_0000000000000000', plan: 'free', perMinute: '60', perDay: '1000' };
    const bad = await invoke(
      createCategory,
      proxyEvent({ method: 'POST', body: '{', headers: { 'Content-Type': 'application/json' }, authorizer }),
    );
    expect(bad.status).toBe(400);
    expect(bad.headers.get('X-RateLimit-Remaining')).toBe('59');
  });
});

describe('exact under concurrency', () => {
  it('300 concurrent requests against a limit of 60: exactly 60 admitted, 240 refused, counters equal 60', async () => {
    const c = customer('free');
    const answers = await Promise.all(Array.from({ length: 300 }, () => c.list()));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(240);
    expect(await counts(c.customerId)).toMatchObject({ minute: 60, day: 60 });
  });

  it('concurrent requests on both sides of a minute boundary: each minute admits exactly its limit', async () => {
    const c = customer('enterprise', { perMinute: 20, perDay: 1_000 });
    let flip = 0;
    setClock(() => (flip++ % 2 === 0 ? T0 + 59_999 : T0 + 60_000));
    const answers = await Promise.all(Array.from({ length: 100 }, () => c.list()));
    setClock(() => now);
    const admitted = answers.filter((a) => a.status === 200).length;
    // Each request counts in the minute its clock says: each minute admits at most its limit.
    expect(admitted).toBeGreaterThanOrEqual(20);
    expect(admitted).toBeLessThanOrEqual(40);
    expect((await counts(c.customerId)).day).toBe(admitted);
  });
});

describe('temporary ban', () => {
  it('refusals reaching max(10, per-minute limit) in one minute ban all keys for BAN_SECONDS; a ban is not extended', async () => {
    const c = customer('enterprise', { perMinute: 5, perDay: 1_000 });
    now = T0 + 1_000;
    await times(5, c.list);
    // The tenth refusal starts the ban and is still answered as a refusal: ten RATE_LIMIT_EXCEEDED, then the ban.
    const refusals = await times(10, c.list);
    expect(refusals.every((a) => a.status === 429 && errorBody(a).code === 'RATE_LIMIT_EXCEEDED')).toBe(true);

    const eleventh = await c.list();
    expect(eleventh.body).toMatchObject({ code: 'API_KEY_TEMPORARILY_BANNED', status: 429 });
    const banEnd = (T0 + 1_000) / 1000 + 900;
    expect(eleventh.headers.get('Retry-After')).toBe('900');
    expect(eleventh.headers.get('X-RateLimit-Reset')).toBe(String(banEnd));

    now = T0 + 120_000; // a new minute with quota, but the ban holds
    const during = await c.list();
    expect(during.body).toMatchObject({ code: 'API_KEY_TEMPORARILY_BANNED' });
    expect(during.headers.get('X-RateLimit-Reset')).toBe(String(banEnd));
    expect(during.headers.get('Retry-After')).toBe(String(banEnd - (T0 + 120_000) / 1000));
    expect(during.headers.get('X-RateLimit-Remaining')).toBe('0');
    expect((await c.status()).body).toMatchObject({ ban: { active: true, until: banEnd } });

    now = banEnd * 1000;
    expect((await c.list()).status).toBe(200);
  });

  it('the threshold is the per-minute limit when that is above 10, and unban lifts a ban', async () => {
    const c = customer('enterprise', { perMinute: 12, perDay: 1_000 });
    await times(12, c.list);
    const refusals = await times(13, c.list);
    expect(refusals.slice(0, 12).every((a) => errorBody(a).code === 'RATE_LIMIT_EXCEEDED')).toBe(true);
    expect(refusals[12]?.body).toMatchObject({ code: 'API_KEY_TEMPORARILY_BANNED' });
    expect(await banLifter(documentClient(), COUNTERS_TABLE).unban(c.customerId, now)).toBe(true);
    now = T0 + 60_000;
    expect((await c.list()).status).toBe(200);
  });
});

describe('the refusals a client is told of are the ones counted', () => {
  it('a Free customer sending 125 requests in a minute: 60 admitted, 60 RATE_LIMIT_EXCEEDED (the ban threshold), then 5 bans; the day counts 60 refused', async () => {
    const c = customer('free');
    now = T0 + 5_000;
    const answers = await times(125, c.list);
    const codes = answers.map((a) => (a.status === 200 ? 'OK' : errorBody(a).code));
    const threshold = banThreshold(c.limits);
    expect(threshold).toBe(60);
    expect(codes).toEqual([
      ...Array<string>(60).fill('OK'),
      ...Array<string>(threshold).fill('RATE_LIMIT_EXCEEDED'),
      ...Array<string>(5).fill('API_KEY_TEMPORARILY_BANNED'),
    ]);
    const dayStart = windowStarts(now / 1000).dayStart;
    const [today] = await usageHistory(documentClient(), COUNTERS_TABLE, { counterKeys }).days(c.customerId, dayStart, dayStart);
    expect(today).toMatchObject({ admitted: 60, refused: codes.filter((code) => code === 'RATE_LIMIT_EXCEEDED').length });
  });
});

describe('GET /rate-limit', () => {
  it('shows plan, both windows and ban, and consumes no quota', async () => {
    const c = customer('pro');
    now = T0 + 30_000;
    await times(3, c.list);
    const first = await c.status();
    const second = await c.status();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      customerId: c.customerId,
      plan: 'pro',
      minute: { limit: 300, remaining: 297, reset: T0 / 1000 + 60 },
      day: { limit: 10_000, remaining: 9_997, reset: DAY_START + 86_400 },
      ban: { active: false, until: null },
    });
    expect(second.body).toEqual(first.body);
    expect(first.headers.get('X-RateLimit-Remaining')).toBe('297');
    expect(await counts(c.customerId)).toMatchObject({ minute: 3, day: 3 });
  });

  it('answers 200 even when the plan is used up', async () => {
    const c = customer('enterprise', { perMinute: 2, perDay: 100 });
    await times(3, c.list);
    const answer = await c.status();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ minute: { remaining: 0 } });
  });
});

// How many writes an admitted call to a deprecated operation costs: deprecated-call-writes.test.ts.
describe('deprecated operations are counted per customer', () => {
  const pet = (c: { customerId: string }, limits: { perMinute: number; perDay: number }) => {
    const authorizer = {
      customerId: c.customerId,
      keyId: 'key_0000000000000000',
      plan: 'enterprise',
      perMinute: String(limits.perMinute),
      perDay: String(limits.perDay),
    };
    return invoke(getPetById, proxyEvent({ path: '/pets/7', resource: '/pets/{petId}', pathParameters: { petId: '7' }, authorizer }));
  };

  it("a sharded customer's calls are added up over its items, and the earlier record's calls are added in", async () => {
    const c = { customerId: `rl-dep-${randomUUID().slice(0, 8)}` };
    // Two items: each request goes to the next one in turn.
    const limits = { perMinute: ITEM_CAPACITY_PER_MINUTE + 1, perDay: 1_000_000_000 };
    expect(shardCount(limits)).toBe(2);
    for (let i = 0; i < 4; i++) {
      now = T0 + i * 1_000;
      expect((await pet(c, limits)).status).toBe(501);
    }
    const perItem = await Promise.all([0, 1].map((i) => storedItem(shardKey(c.customerId, i))));
    expect(perItem.map((item) => item?.[callCountName('getPetById')])).toEqual([2, 2]);
    await documentClient().send(
      new PutCommand({
        TableName: COUNTERS_TABLE,
        Item: {
          customerId: `deprecated#${c.customerId}`,
          count_getPetById: 5,
          last_getPetById: '2036-03-01T08:00:00.000Z',
          count_oldOp: 1,
          last_oldOp: '2036-02-01T08:00:00.000Z',
        },
      }),
    );
    expect(await deprecatedCalls.read(c.customerId)).toEqual({
      getPetById: { count: 9, last: new Date(T0 + 3_000).toISOString() },
      oldOp: { count: 1, last: '2036-02-01T08:00:00.000Z' },
    });
  });
});

describe('without the authorizer context', () => {
  it('an operation refuses with 401 and the static X-RateLimit headers', async () => {
    resetClock();
    const answer = await invoke(listCategories, proxyEvent({ authorizer: null }));
    setClock(() => now);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(answer.headers.get('X-RateLimit-Limit')).toBe('0');
  });
});
