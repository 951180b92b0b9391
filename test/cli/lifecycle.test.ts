/**
 * Keys that expire and roll, customers that are suspended and resumed, and the customer listings: each command
 * through the CLI, and what the API then answers, through the local gateway (authorizer cache off, so each change
 * shows at once; deployed, the cache TTL bounds how late). The clock is moved to cross an expiry.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nowMs, resetClock, setClock } from '../../lib/clock.js';
import { type Answer, errorBody } from '../support/answer.js';
import { petstore } from '../support/cli.js';
import { testDb } from '../support/customers.js';
import { useGateway } from '../support/http.js';

const { call } = useGateway();

afterEach(() => resetClock());

const HOUR = 3_600_000;

async function cli(...args: string[]) {
  const result = await petstore(...args, '--json');
  if (result.code !== 0) throw new Error(`petstore ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function newCustomer(plan = 'pro'): Promise<string> {
  const customerId = `life-${randomUUID().slice(0, 8)}`;
  await cli('customers', 'set-plan', customerId, plan);
  return customerId;
}

const messageOf = (answer: Answer) => errorBody(answer).message;

/** Runs with the clock at `ms` from now, then puts it back. */
async function later<T>(ms: number, run: () => Promise<T>): Promise<T> {
  const at = Date.now() + ms;
  setClock(() => at);
  try {
    return await run();
  } finally {
    resetClock();
  }
}

describe('keys create --expires-in / --expires-at', () => {
  it('issues a key that works until it expires, then gets 401 saying it expired and when', async () => {
    const customerId = await newCustomer();
    const created = await cli('keys', 'create', customerId, '--expires-in', '1h');
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'customerId', 'expiresAt', 'keyId', 'plan', 'stage']);
    expect(Date.parse(created.expiresAt) - nowMs()).toBeGreaterThan(HOUR - 60_000);
    expect(Date.parse(created.expiresAt) - nowMs()).toBeLessThanOrEqual(HOUR);
    expect((await call('/rate-limit', { key: created.apiKey })).status).toBe(200);

    const refused = await later(2 * HOUR, () => call('/rate-limit', { key: created.apiKey }));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      code: 'UNAUTHORIZED',
      status: 401,
      message: expect.stringContaining(`expired at ${created.expiresAt}`),
    });
    const listed = await later(2 * HOUR, () => cli('keys', 'list', customerId));
    expect(listed).toEqual([expect.objectContaining({ keyId: created.keyId, status: 'expired', expires: created.expiresAt })]);
  });

  it('--expires-at takes a day or an instant; keys list shows active, expiring (within 7 days), expired and revoked', async () => {
    const customerId = await newCustomer();
    const inAYear = new Date(nowMs() + 365 * 24 * HOUR).toISOString().slice(0, 10);
    const lasting = await cli('keys', 'create', customerId, '--expires-at', inAYear, '--name', 'yearly');
    expect(lasting.expiresAt).toBe(`${inAYear}T00:00:00.000Z`);
    const soon = await cli('keys', 'create', customerId, '--expires-at', new Date(nowMs() + 3 * 24 * HOUR).toISOString());
    const forever = await cli('keys', 'create', customerId);
    expect(forever.expiresAt).toBeUndefined();
    const gone = await cli('keys', 'create', customerId);
    await cli('keys', 'revoke', gone.keyId);

    const byId = Object.fromEntries((await cli('keys', 'list', customerId)).map((k: { keyId: string }) => [k.keyId, k]));
    expect(byId[lasting.keyId]).toMatchObject({ status: 'active', expires: lasting.expiresAt, name: 'yearly' });
    expect(byId[soon.keyId]).toMatchObject({ status: 'expiring', expires: soon.expiresAt });
    expect(byId[forever.keyId]).toMatchObject({ status: 'active', expires: null });
    expect(byId[gone.keyId]).toMatchObject({ status: 'revoked' });
    // The text lists the same, with a header.
    const text = (await petstore('keys', 'list', customerId)).stdout;
    expect(text).toMatch(/^KEY\s+CUSTOMER\s+STATUS\s+EXPIRES\s+CREATED\s+NAME/);
    expect(text).toMatch(new RegExp(`${soon.keyId}\\s+${customerId}\\s+expiring\\s+${soon.expiresAt}`));
    expect(text).toMatch(new RegExp(`${forever.keyId}\\s+${customerId}\\s+active\\s+never`));
  });
});

describe('keys roll', () => {
  it('issues a new key, shown once; the old one works through the grace period, then is refused as expired', async () => {
    const customerId = await newCustomer();
    const old = await cli('keys', 'create', customerId, '--name', 'backend');
    const rolled = await cli('keys', 'roll', old.keyId, '--grace', '1h');
    expect(rolled).toMatchObject({ customerId, plan: 'pro', stage: 'production', rolledFrom: { keyId: old.keyId } });
    expect(rolled.apiKey).toMatch(/^pet_live_/);
    expect(rolled.keyId).not.toBe(old.keyId);
    expect(Date.parse(rolled.rolledFrom.expiresAt) - nowMs()).toBeGreaterThan(HOUR - 60_000);

    for (const key of [old.apiKey, rolled.apiKey]) expect((await call('/rate-limit', { key })).status).toBe(200);
    const keys = await cli('keys', 'list', customerId);
    expect(keys).toEqual([
      expect.objectContaining({ keyId: old.keyId, status: 'expiring', expires: rolled.rolledFrom.expiresAt, rolledTo: rolled.keyId }),
      expect.objectContaining({ keyId: rolled.keyId, status: 'active', expires: null, name: 'backend', rolledFrom: old.keyId }),
    ]);

    const [oldAnswer, newAnswer] = await later(2 * HOUR, () =>
      Promise.all([call('/rate-limit', { key: old.apiKey }), call('/rate-limit', { key: rolled.apiKey })]),
    );
    expect(oldAnswer.status).toBe(401);
    expect(messageOf(oldAnswer)).toContain(`expired at ${rolled.rolledFrom.expiresAt}`);
    expect(newAnswer.status).toBe(200);
    // Both keys share the customer's counters: rolling never resets usage.
    expect(newAnswer.body).toMatchObject({ customerId });
  });

  it('--grace 0 refuses the old key at once; a roll never lengthens an expiring key; the text shows the key once', async () => {
    const customerId = await newCustomer();
    const old = await cli('keys', 'create', customerId);
    const rolled = await petstore('keys', 'roll', old.keyId, '--grace', '0');
    expect(rolled.code).toBe(0);
    const [apiKey, , line, oldLine] = rolled.stdout.split('\n');
    expect(apiKey).toMatch(/^pet_live_[0-9A-Za-z]{36}$/);
    expect(line).toContain(`replaces ${old.keyId}`);
    expect(oldLine).toContain('no longer works');
    expect(messageOf(await call('/rate-limit', { key: old.apiKey }))).toMatch(/expired at/);
    expect((await call('/rate-limit', { key: apiKey })).status).toBe(200);

    const short = await cli('keys', 'create', customerId, '--expires-in', '30m');
    const again = await cli('keys', 'roll', short.keyId, '--grace', '7d');
    expect(again.rolledFrom.expiresAt).toBe(short.expiresAt);
  });

  it('a revoked key, or one already rolled, is not rolled: exit 2, nothing written', async () => {
    const customerId = await newCustomer();
    const revoked = await cli('keys', 'create', customerId);
    await cli('keys', 'revoke', revoked.keyId);
    const rolledOnce = await cli('keys', 'create', customerId);
    const successor = await cli('keys', 'roll', rolledOnce.keyId);
    const tables = async () =>
      JSON.stringify(
        await Promise.all(
          [process.env.KEYS_TABLE, process.env.AUDIT_TABLE].map(async (TableName) =>
            ((await testDb.send(new ScanCommand({ TableName, ConsistentRead: true }))).Items ?? []).map((i) => JSON.stringify(i)).sort(),
          ),
        ),
      );
    const before = await tables();
    const onRevoked = await petstore('keys', 'roll', revoked.keyId);
    expect(onRevoked).toMatchObject({ code: 2, stderr: expect.stringMatching(`key ${revoked.keyId} is revoked`) });
    const onRolled = await petstore('keys', 'roll', rolledOnce.keyId);
    expect(onRolled).toMatchObject({ code: 2, stderr: expect.stringMatching(`already rolled, to ${successor.keyId}`) });
    expect(await tables()).toBe(before);
  });
});

describe('customers suspend / resume', () => {
  it('refuses every key of a suspended customer with 401 saying so, keeps keys and usage, and resume lets them in again', async () => {
    const customerId = await newCustomer('business');
    const [a, b] = [await cli('keys', 'create', customerId), await cli('keys', 'create', customerId)];
    for (let i = 0; i < 3; i++) expect((await call('/categories', { key: a.apiKey })).status).toBe(200);
    const usageBefore = await cli('usage', customerId);

    const suspended = await cli('customers', 'suspend', customerId, '--reason', 'invoice 2036-03 unpaid');
    expect(suspended).toMatchObject({ customerId, suspended: true, reason: 'invoice 2036-03 unpaid', changed: true });
    for (const key of [a.apiKey, b.apiKey]) {
      const answer = await call('/categories', { key });
      expect(answer.status).toBe(401);
      expect(messageOf(answer)).toMatch(/account this API key belongs to is suspended/);
      // The reason is for operators, not for the API's callers.
      expect(messageOf(answer)).not.toContain('invoice');
    }
    expect((await cli('keys', 'list', customerId)).map((k: { status: string }) => k.status)).toEqual(['active', 'active']);
    expect((await cli('usage', customerId)).day).toEqual(usageBefore.day);
    expect(await cli('customers', 'show', customerId)).toMatchObject({
      suspended: { at: suspended.suspendedAt, reason: 'invoice 2036-03 unpaid' },
    });
    // Suspending again changes nothing.
    expect(await cli('customers', 'suspend', customerId)).toMatchObject({ changed: false, reason: 'invoice 2036-03 unpaid' });

    expect(await cli('customers', 'resume', customerId)).toEqual({ customerId, suspended: false, changed: true });
    for (const key of [a.apiKey, b.apiKey]) expect((await call('/categories', { key })).status).toBe(200);
    expect((await cli('usage', customerId)).day.used).toBe(usageBefore.day.used + 2);
    expect(await cli('customers', 'resume', customerId)).toEqual({ customerId, suspended: false, changed: false });
    expect((await cli('customers', 'show', customerId)).suspended).toBeNull();
  });
});

describe('customers list / show', () => {
  let customerId: string;
  let keyIds: string[];

  beforeAll(async () => {
    customerId = await newCustomer();
    await cli('customers', 'set-plan', customerId, 'enterprise', '--per-minute', '500', '--per-day', '90000');
    const keys = [
      await cli('keys', 'create', customerId, '--name', 'web'),
      await cli('keys', 'create', customerId),
      await cli('keys', 'create', customerId),
    ];
    await cli('keys', 'revoke', keys[2].keyId);
    keyIds = keys.map((k) => k.keyId);
    for (let i = 0; i < 4; i++) await call('/categories', { key: keys[0].apiKey });
  });

  it('list: every customer with plan, limits, working keys (not revoked or expired) and state', async () => {
    const rows = await cli('customers', 'list');
    expect(rows).toContainEqual({ customerId, plan: 'enterprise', perMinute: 500, perDay: 90000, activeKeys: 2, suspended: false });
    const ids = rows.map((r: { customerId: string }) => r.customerId);
    expect(ids).toEqual([...ids].sort());
    const text = (await petstore('customers', 'list')).stdout;
    expect(text).toMatch(new RegExp(`${customerId}\\s+enterprise\\s+500\\s+90000\\s+2\\s+active`));
  });

  it("show: plan, limits, keys, today's usage and ban", async () => {
    const shown = await cli('customers', 'show', customerId);
    expect(shown).toMatchObject({
      customerId,
      plan: 'enterprise',
      perMinute: 500,
      perDay: 90000,
      stage: 'production',
      suspended: null,
      today: { date: new Date(nowMs()).toISOString().slice(0, 10), admitted: 4, refused: 0 },
      ban: { active: false, until: null },
    });
    expect(shown.keys.map((k: { keyId: string; status: string }) => [k.keyId, k.status])).toEqual([
      [keyIds[0], 'active'],
      [keyIds[1], 'active'],
      [keyIds[2], 'revoked'],
    ]);
    const text = (await petstore('customers', 'show', customerId)).stdout;
    expect(text).toContain('plan:      enterprise: 500 per minute, 90000 per day');
    expect(text).toMatch(/today:\s+4 admitted, 0 refused/);
    expect(text).not.toMatch(/pet_live_/);
  });
});
