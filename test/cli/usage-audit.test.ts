/**
 * `usage` by day and by month (the billing export, CSV), fed by requests through the local gateway on both sides
 * of a UTC midnight, and the audit trail of every change the CLI makes: who, when, what; never a key or key hash.
 */
import { userInfo } from 'node:os';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetClock, setClock } from '../../lib/clock.js';
import { documentClient } from '../../lib/dynamo/client.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { refusalCache } from '../../lib/rate-limit/refusal-cache.js';
import { petstore } from '../support/cli.js';
import { testDb } from '../support/customers.js';
import { useGateway } from '../support/http.js';

const { call } = useGateway();

/**
 * 2036-03-30 10:00 UTC, then the next day: in the future, as DynamoDB Local applies the counters' TTL to the real
 * clock. The customers of this file are named for it; the gateway's default customer has no requests then.
 */
const DAY_ONE = Date.UTC(2036, 2, 30, 10);
const DAY_TWO = Date.UTC(2036, 2, 31, 9);
let now = DAY_ONE;
beforeAll(() => setClock(() => now));
afterAll(() => resetClock());

async function cli(...args: string[]) {
  const result = await petstore(...args, '--json');
  if (result.code !== 0) throw new Error(`petstore ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe('usage by day and by month', () => {
  let freeKey: string;
  let proKey: string;

  beforeAll(async () => {
    await cli('customers', 'set-plan', 'bill-free', 'free');
    await cli('customers', 'set-plan', 'bill-pro', 'pro');
    await cli('customers', 'set-plan', 'bill-idle', 'business');
    freeKey = (await cli('keys', 'create', 'bill-free')).apiKey;
    proKey = (await cli('keys', 'create', 'bill-pro')).apiKey;
    await cli('customers', 'set-plan', 'bill-tight', 'enterprise', '--per-minute', '3', '--per-day', '3');
    const tightKey = (await cli('keys', 'create', 'bill-tight')).apiKey;
    // Day one: free 5, pro 2, tight 3 admitted and 2 refused (its day is used up).
    for (let i = 0; i < 5; i++) expect((await call('/categories', { key: freeKey })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call('/store/orders', { key: proKey })).status).toBe(501);
    const tight = await Promise.all(Array.from({ length: 5 }, () => call('/categories', { key: tightKey })));
    expect(tight.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429]);
    // Refusals are counted in batches, about a second late (refusal-cache.ts): the gateway's timer writes these.
    // Wait until they are there (a count, not a time: a loaded machine may take longer).
    await vi.waitFor(
      async () => {
        const usage = await cli('usage', 'bill-tight', '--from', '2036-03-30', '--to', '2036-03-30');
        expect(usage).toMatchObject({ days: [{ date: '2036-03-30', refused: 2 }] });
      },
      { timeout: 20_000, interval: 250 },
    );
    // Day two: free 1, pro nothing yet (day one is still on the live counters, not final until day three).
    now = DAY_TWO;
    expect((await call('/categories', { key: freeKey })).status).toBe(200);
    // GET /rate-limit is unchanged and counts nothing.
    expect((await call('/rate-limit', { key: freeKey })).body).toMatchObject({ day: { limit: 1000, remaining: 999 } });
  });

  it('usage <customerId>: one row per day, its live windows and ban; --from/--to choose the days', async () => {
    const usage = await cli('usage', 'bill-free', '--from', '2036-03-29', '--to', '2036-03-31');
    expect(usage).toMatchObject({
      customerId: 'bill-free',
      plan: 'free',
      day: { limit: 1000, used: 1, remaining: 999 },
      ban: { active: false, until: null },
      from: '2036-03-29',
      to: '2036-03-31',
      days: [
        { date: '2036-03-29', admitted: 0, refused: 0 },
        { date: '2036-03-30', admitted: 5, refused: 0 },
        { date: '2036-03-31', admitted: 1, refused: 0 },
      ],
      total: { admitted: 6, refused: 0 },
    });
    // Refusals have their own column; a day not yet moved to the history comes from the live counter.
    expect((await cli('usage', 'bill-tight', '--from', '2036-03-30', '--to', '2036-03-30')).days).toEqual([
      { date: '2036-03-30', admitted: 3, refused: 2 },
    ]);
    expect((await cli('usage', 'bill-pro', '--from', '2036-03-30')).days).toEqual([
      { date: '2036-03-30', admitted: 2, refused: 0 },
      { date: '2036-03-31', admitted: 0, refused: 0 },
    ]);
    // Without --from: the days since the customer was created (bill-free on 2036-03-30), at most the last 30, today
    // last; a --to after today stops at today.
    const recent = await cli('usage', 'bill-free');
    expect(recent).toMatchObject({ from: '2036-03-30', to: '2036-03-31' });
    expect(recent.days.map((d: { date: string }) => d.date)).toEqual(['2036-03-30', '2036-03-31']);
    expect((await cli('usage', 'bill-free', '--from', '2036-03-31', '--to', '2036-04-30')).to).toBe('2036-03-31');
    const text = (await petstore('usage', 'bill-free', '--from', '2036-03-30')).stdout;
    expect(text).toMatch(/2036-03-30\s+5\s+0\n2036-03-31\s+1\s+0\ntotal\s+6\s+0/);
    expect((await petstore('usage', 'bill-free')).stdout).toMatch(/REFUSED\n2036-03-30\s+5\s+0\n2036-03-31\s+1\s+0\ntotal/);
    // --from is taken as given, days before the customer existed included.
    expect((await cli('usage', 'bill-free', '--from', '2036-03-29')).days).toHaveLength(3);
  });

  it('usage <customerId> of a customer older than 30 days: the last 30 days; created after --to: no day', async () => {
    const today = now;
    now = today - 45 * 86_400_000;
    await cli('customers', 'set-plan', 'usage-old', 'pro');
    now = today;
    const recent = await cli('usage', 'usage-old');
    expect(recent.days).toHaveLength(30);
    expect(recent).toMatchObject({ from: '2036-03-02', to: '2036-03-31' });
    expect((await cli('usage', 'bill-free', '--to', '2036-03-29')).days).toEqual([]);
  });

  it('usage --month --csv: every customer, its plan and its admitted total, for billing', async () => {
    const csv = await petstore('usage', '--month', '2036-03', '--csv');
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('month,customerId,plan,admitted,refused,activeDays');
    expect(lines).toEqual(
      expect.arrayContaining([
        '2036-03,bill-free,free,6,0,2',
        '2036-03,bill-idle,business,0,0,0',
        '2036-03,bill-pro,pro,2,0,1',
        '2036-03,bill-tight,enterprise,3,2,1',
      ]),
    );
    const json = await cli('usage', '--month', '2036-03');
    expect(json).toMatchObject({ month: '2036-03', stage: 'production', complete: false });
    expect(json.customers).toContainEqual({ customerId: 'bill-pro', plan: 'pro', admitted: 2, refused: 0, activeDays: 1 });
    expect(json.total.admitted).toBe(json.customers.reduce((s: number, c: { admitted: number }) => s + c.admitted, 0));
    expect((await cli('usage', '--month', '2036-02')).customers.every((c: { admitted: number }) => c.admitted === 0)).toBe(true);
  });

  it('usage <customerId>: the calls to a deprecated operation, counted over HTTP, past its sunset too', async () => {
    await cli('customers', 'set-plan', 'bill-pets', 'pro');
    const key = (await cli('keys', 'create', 'bill-pets')).apiKey;
    expect((await cli('usage', 'bill-pets')).deprecatedCalls).toEqual({});
    // The clock is past the default sunset: 410 GONE, and each admitted call is counted all the same.
    for (let i = 0; i < 2; i++) expect((await call('/pets/7', { key })).status).toBe(410);
    const last = new Date(Math.floor(now / 1000) * 1000).toISOString();
    expect((await cli('usage', 'bill-pets')).deprecatedCalls).toEqual({ getPetById: { count: 2, last } });
    expect((await petstore('usage', 'bill-pets')).stdout).toContain(`deprecated operations: getPetById 2 calls, last ${last}`);
  });
});

describe('audit trail', () => {
  const actor = userInfo().username;

  let bannedUntil: string;

  beforeAll(async () => {
    // A second between changes, so their order is their time's.
    now = DAY_TWO + 60_000;
    const step = async (...args: string[]) => {
      now += 1_000;
      return cli(...args);
    };
    await step('customers', 'set-plan', 'audited', 'free');
    await step('customers', 'set-plan', 'audited', 'pro');
    await step('customers', 'set-plan', 'audited', 'pro');
    const key = await step('keys', 'create', 'audited', '--name', 'ci', '--expires-in', '90d');
    const rolled = await step('keys', 'roll', key.keyId, '--grace', '1h');
    await step('keys', 'revoke', rolled.keyId);
    await step('keys', 'revoke', rolled.keyId);
    await step('customers', 'suspend', 'audited', '--reason', 'chargeback');
    await step('customers', 'resume', 'audited');
    await step('customers', 'set-plan', 'audited', 'enterprise', '--per-minute', '1', '--per-day', '100');
    // A ban to lift: ten refusals in a minute with a limit of 1 per minute.
    // The API's limiter: the refusal cache counts refusals toward the ban (the CounterStore alone does not).
    const limiter = refusalCache(dynamoRateLimiter(documentClient(), process.env.COUNTERS_TABLE ?? '', { banSeconds: 900 }));
    for (let i = 0; i < 11; i++) await limiter.consume('audited', { perMinute: 1, perDay: 100 }, now);
    bannedUntil = new Date(Math.floor(now / 1000) * 1000 + 900_000).toISOString();
    expect((await step('unban', 'audited')).wasBanned).toBe(true);
    expect((await step('unban', 'audited')).wasBanned).toBe(false);
  });

  it('records every change with who, when and what changed, oldest first; nothing for commands that changed nothing', async () => {
    const entries = await cli('audit', '--customer', 'audited');
    expect(entries.map((e: { action: string }) => e.action)).toEqual([
      'plan-change',
      'plan-change',
      'key-create',
      'key-roll',
      'key-revoke',
      'suspend',
      'resume',
      'plan-change',
      'unban',
    ]);
    for (const e of entries)
      expect(e).toMatchObject({ customerId: 'audited', actor, at: expect.stringMatching(/^2036-03-31T09:01:\d\d\.000Z$/) });
    const [created, upgraded, key, roll, revoke, suspend] = entries;
    expect(created.changes).toEqual({
      plan: { from: null, to: 'free' },
      perMinute: { from: null, to: 60 },
      perDay: { from: null, to: 1000 },
    });
    expect(upgraded.changes).toEqual({
      plan: { from: 'free', to: 'pro' },
      perMinute: { from: 60, to: 300 },
      perDay: { from: 1000, to: 10000 },
    });
    expect(key).toMatchObject({
      keyId: expect.stringMatching(/^key_/),
      changes: { status: { from: null, to: 'active' }, name: { from: null, to: 'ci' } },
    });
    expect(roll).toMatchObject({ keyId: key.keyId, changes: { rolledTo: { from: null, to: expect.stringMatching(/^key_/) } } });
    expect(roll.changes.expiresAt.from).toBe(key.changes.expiresAt.to);
    expect(revoke).toMatchObject({ keyId: roll.changes.rolledTo.to, changes: { status: { from: 'active', to: 'revoked' } } });
    expect(suspend).toMatchObject({ reason: 'chargeback', changes: { suspended: { from: false, to: true } } });
    expect(entries.at(-1).changes).toEqual({ banUntil: { from: bannedUntil, to: null } });
  });

  it('never holds a key or a key hash', async () => {
    const { Items } = await testDb.send(new ScanCommand({ TableName: process.env.AUDIT_TABLE, ConsistentRead: true }));
    expect(Items?.length).toBeGreaterThan(9);
    const text = JSON.stringify(Items);
    expect(text).not.toMatch(/pet_(live|test)_/);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
    expect(text).not.toMatch(/keyHash/);
  });

  it('audit without --customer lists every customer; --since leaves out what came before', async () => {
    const all = await cli('audit');
    expect(new Set(all.map((e: { customerId: string }) => e.customerId))).toEqual(
      new Set(['audited', 'bill-free', 'bill-pro', 'bill-idle', 'bill-pets', 'bill-tight', 'usage-old']),
    );
    const ats = all.map((e: { at: string }) => e.at);
    expect(ats).toEqual([...ats].sort());
    const since = await cli('audit', '--since', '2036-03-31T09:00:30Z');
    expect(since.every((e: { customerId: string }) => e.customerId === 'audited')).toBe(true);
    expect(since).toHaveLength(9);
    expect(await cli('audit', '--customer', 'bill-pro', '--since', '2036-03-31')).toEqual([]);
    const text = (await petstore('audit', '--customer', 'audited')).stdout.split('\n');
    expect(text[1]).toBe(
      `2036-03-31T09:01:02.000Z  ${actor}  plan-change  audited  perDay 1000 → 10000, perMinute 60 → 300, plan free → pro`,
    );
    expect(text[5]).toMatch(/ {2}suspend {2}audited {2}suspended false → true {2}reason: chargeback$/);
  });
});

describe('unban of a customer who is not banned', () => {
  it('changes nothing and records nothing: the refusals before it still count, and the tenth bans', async () => {
    now = DAY_TWO + 2 * 3_600_000;
    await cli('customers', 'set-plan', 'unban-noop', 'enterprise', '--per-minute', '10', '--per-day', '1000');
    now += 1_000;
    const key = (await cli('keys', 'create', 'unban-noop')).apiKey;
    const statuses: number[] = [];
    for (let i = 0; i < 19; i++) {
      now += 10;
      statuses.push((await call('/categories', { key })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(9).fill(429)]);
    const counters = async () =>
      (await testDb.send(new ScanCommand({ TableName: process.env.COUNTERS_TABLE, ConsistentRead: true }))).Items?.filter(
        (item) => item.customerId === 'unban-noop',
      );
    // The gateway writes the refusals about a second late (refusal-cache.ts): wait for them, so the item stays put.
    await vi.waitFor(
      async () =>
        expect((await cli('usage', 'unban-noop', '--from', '2036-03-31')).days).toEqual([{ date: '2036-03-31', admitted: 10, refused: 9 }]),
      { timeout: 20_000, interval: 250 },
    );
    const before = await counters();

    now += 1_000;
    const unban = await petstore('unban', 'unban-noop');
    expect(unban).toMatchObject({ code: 0, stdout: 'unban-noop was not banned\n' });
    expect(await cli('unban', 'unban-noop')).toEqual({ customerId: 'unban-noop', wasBanned: false });
    expect(await counters()).toEqual(before);
    expect((await cli('audit', '--customer', 'unban-noop')).map((e: { action: string }) => e.action)).toEqual([
      'plan-change',
      'key-create',
    ]);

    // Six more, all refused: 15 refusals in the minute, over the threshold of 10, so the customer is banned.
    const more: string[] = [];
    for (let i = 0; i < 6; i++) {
      now += 10;
      const answer = await call('/categories', { key });
      expect(answer.status).toBe(429);
      more.push((answer.body as { code: string }).code);
    }
    expect(more).toContain('API_KEY_TEMPORARILY_BANNED');
    expect((await cli('usage', 'unban-noop')).ban).toMatchObject({ active: true });
  });
});
