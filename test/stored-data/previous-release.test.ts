/**
 * Two versions at once: during a rollout old and new code serve side by side, and after a rollback the old code
 * reads what the new one wrote; either way today's code must read every item the previous release wrote. The
 * fixtures (test/fixtures/stored-items/) are that release's items, written by its own code (write-fixtures.ts,
 * each item with a note); they are put into DynamoDB Local as they are and read here through today's readers: the
 * authorizer's decision, the admin CLI's lists, the rate limiter's peek and consume, the usage history, the
 * deprecated-call counts, the category functions, and the idempotency layer replaying and refusing on the
 * release's records. The expectations are what that release's code answered on the same items: a change that
 * follows the rule for stored data (docs: "Stored data across versions") passes this file unchanged.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as createCategory } from '../../functions/create-category.js';
import { handler as listCategories } from '../../functions/list-categories.js';
import { decide } from '../../lib/auth/authorize.js';
import { authReader } from '../../lib/auth/reader.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { deprecatedCallStore } from '../../lib/rate-limit/deprecated-calls.js';
import { dynamoRateLimiter } from '../../lib/rate-limit/dynamo-limiter.js';
import { counterKeys } from '../../lib/rate-limit/shards.js';
import { parseDate } from '../../lib/usage/days.js';
import { usageHistory } from '../../lib/usage/history.js';
import { FIXTURE_RELEASE, FIXTURE_TIMES } from '../fixtures/stored-items/release.js';
import { petstore } from '../support/cli.js';
import { testDb } from '../support/customers.js';
import { invoke, proxyEvent } from '../support/events.js';
import { FIXTURE_FILES, type FixtureEntry, fixtureFile, writeFixtures } from '../support/stored-items.js';

const files = FIXTURE_FILES.map(fixtureFile);
const NOW = Date.parse(FIXTURE_TIMES.now);
const NOW_SECONDS = NOW / 1000;
const COUNTERS_TABLE = process.env.COUNTERS_TABLE ?? '';

beforeAll(async () => {
  await writeFixtures(files);
});
afterEach(() => resetClock());

const keyEntries = files.find((f) => f.table === 'keys')?.items ?? [];
/** The key fixture of `customerId` whose note starts with `note`. */
function keyOf(customerId: string, note: string): FixtureEntry & { apiKey: string } {
  const entry = keyEntries.find((e) => e.item.customerId?.S === customerId && e.note.startsWith(note));
  if (!entry?.apiKey) throw new Error(`no key fixture of ${customerId}: ${note}`);
  return { ...entry, apiKey: entry.apiKey };
}
const keyIdOf = (entry: FixtureEntry) => entry.item.keyId?.S;

describe('the fixtures', () => {
  it('were written by the previous release, each item with a note, and cover every kind of item it stores', () => {
    for (const file of files) {
      expect(file.writtenBy).toBe(FIXTURE_RELEASE);
      for (const entry of file.items) expect(entry.note).not.toBe('no note');
    }
    const counterKeysWritten = files.find((f) => f.table === 'counters')?.items.map((e) => e.item.customerId?.S);
    expect(counterKeysWritten).toEqual(
      expect.arrayContaining(['fixture-free', 'shard#1#fixture-sharded', 'usage#fixture-free#2036-03', 'deprecated#fixture-free']),
    );
    const categoryKeys = files.find((f) => f.table === 'categories')?.items.map((e) => e.item.pk?.S);
    expect(new Set(categoryKeys)).toEqual(
      new Set(['CATEGORY', 'COUNTER', 'NAME#dogs', 'NAME#cats', 'NAME#straße', 'NAME#birds', 'NAME#fish']),
    );
    const statuses = files.find((f) => f.table === 'idempotency')?.items.map((e) => e.item.status?.S);
    expect(statuses?.sort()).toEqual(['COMPLETED', 'INPROGRESS']);
  });
});

describe('keys and customers, through the authorizer', () => {
  const reader = authReader(testDb, { customers: process.env.CUSTOMERS_TABLE ?? '', keys: process.env.KEYS_TABLE ?? '' });
  const decision = (entry: { apiKey: string }, at = NOW) => decide(`Bearer ${entry.apiKey}`, 'production', reader, at);

  it('accepts the active keys with their customer, plan and limits (Enterprise numbers included)', async () => {
    const expected = [
      { key: keyOf('fixture-free', 'active key with a name'), plan: 'free', perMinute: 60, perDay: 1_000 },
      { key: keyOf('fixture-pro', 'key rolled'), plan: 'pro', perMinute: 300, perDay: 10_000 },
      { key: keyOf('fixture-pro', 'the key that replaced'), plan: 'pro', perMinute: 300, perDay: 10_000 },
      { key: keyOf('fixture-enterprise', 'active key that expires'), plan: 'enterprise', perMinute: 5, perDay: 100 },
      { key: keyOf('fixture-sharded', 'active key'), plan: 'enterprise', perMinute: 90_000, perDay: 1_000_000 },
      { key: keyOf('fixture-idle', 'active key'), plan: 'free', perMinute: 60, perDay: 1_000 },
    ];
    for (const { key, ...limits } of expected) {
      expect(await decision(key)).toEqual({
        allow: true,
        context: { customerId: key.item.customerId?.S, keyId: keyIdOf(key), ...limits },
      });
    }
  });

  it("refuses a revoked key, a suspended customer's key, and a rolled or expiring key once its time has passed", async () => {
    expect(await decision(keyOf('fixture-free', 'revoked key'))).toMatchObject({ allow: false, refusal: 'revoked' });
    expect(await decision(keyOf('fixture-suspended', 'active key of a suspended customer'))).toMatchObject({
      allow: false,
      refusal: 'suspended',
    });
    // Rolled with a day's grace; the expiring key was made for 90 days.
    expect(await decision(keyOf('fixture-pro', 'key rolled'), NOW + 86_400_000)).toMatchObject({ allow: false, refusal: 'expired' });
    const expiring = keyOf('fixture-enterprise', 'active key that expires');
    expect(await decision(expiring, Date.parse(expiring.item.expiresAt?.S ?? ''))).toMatchObject({ allow: false, refusal: 'expired' });
  });
});

describe('keys and customers, through the admin CLI', () => {
  it('customers list and keys list read every item', async () => {
    setClock(() => NOW);
    const customers = await petstore('customers', 'list', '--json');
    expect(customers.code).toBe(0);
    expect(JSON.parse(customers.stdout)).toEqual([
      { customerId: 'fixture-creator', plan: 'pro', perMinute: 300, perDay: 10_000, activeKeys: 1, suspended: false },
      { customerId: 'fixture-enterprise', plan: 'enterprise', perMinute: 5, perDay: 100, activeKeys: 1, suspended: false },
      { customerId: 'fixture-free', plan: 'free', perMinute: 60, perDay: 1_000, activeKeys: 1, suspended: false },
      { customerId: 'fixture-idle', plan: 'free', perMinute: 60, perDay: 1_000, activeKeys: 1, suspended: false },
      { customerId: 'fixture-pro', plan: 'pro', perMinute: 300, perDay: 10_000, activeKeys: 2, suspended: false },
      { customerId: 'fixture-sharded', plan: 'enterprise', perMinute: 90_000, perDay: 1_000_000, activeKeys: 1, suspended: false },
      { customerId: 'fixture-suspended', plan: 'pro', perMinute: 300, perDay: 10_000, activeKeys: 1, suspended: true },
    ]);
    const keys = await petstore('keys', 'list', 'fixture-pro', '--json');
    expect(keys.code).toBe(0);
    const rolled = keyOf('fixture-pro', 'key rolled');
    const successor = keyOf('fixture-pro', 'the key that replaced');
    expect(JSON.parse(keys.stdout)).toEqual([
      expect.objectContaining({
        keyId: keyIdOf(rolled),
        status: 'expiring',
        expires: rolled.item.expiresAt?.S,
        rolledTo: keyIdOf(successor),
      }),
      expect.objectContaining({ keyId: keyIdOf(successor), status: 'active', expires: null, rolledFrom: keyIdOf(rolled) }),
    ]);
  });
});

// Read before the rate limiter's tests below count more requests on the same items.
describe('the usage history and deprecated calls', () => {
  const history = usageHistory(testDb, COUNTERS_TABLE, { counterKeys });
  const day = (date: string) => parseDate(date) ?? 0;

  it("reads a day moved to the history month, a day still on an idle customer's counter item, and both in the month", async () => {
    expect(await history.days('fixture-free', day('2036-03-17'), day('2036-03-19'))).toEqual([
      { date: '2036-03-17', admitted: 0, refused: 0 },
      { date: '2036-03-18', admitted: 60, refused: 1 },
      { date: '2036-03-19', admitted: 0, refused: 0 },
    ]);
    expect(await history.days('fixture-idle', day('2036-03-18'), day('2036-03-18'))).toEqual([
      { date: '2036-03-18', admitted: 3, refused: 0 },
    ]);
    expect(await history.month(['fixture-free', 'fixture-idle', 'fixture-sharded'], '2036-03')).toEqual([
      { customerId: 'fixture-free', admitted: 60 + 3, refused: 1, activeDays: 2 },
      { customerId: 'fixture-idle', admitted: 3, refused: 0, activeDays: 1 },
      { customerId: 'fixture-sharded', admitted: 7, refused: 0, activeDays: 1 },
    ]);
  });

  it('adds the deprecated calls of the earlier record of their own to those counted on the counter item', async () => {
    expect(await deprecatedCallStore(testDb, COUNTERS_TABLE).read('fixture-free')).toEqual({
      getPetById: { count: 4 + 2, last: FIXTURE_TIMES.now },
    });
  });
});

describe('counter items, through the rate limiter', () => {
  const limiter = dynamoRateLimiter(testDb, COUNTERS_TABLE, { banSeconds: 900 });
  const FREE = { perMinute: 60, perDay: 1_000 };
  const ENTERPRISE = { perMinute: 5, perDay: 100 };
  const SHARDED = { perMinute: 90_000, perDay: 1_000_000 };
  const minuteReset = NOW_SECONDS - (NOW_SECONDS % 60) + 60;
  const banUntil = Number(
    files.find((f) => f.table === 'counters')?.items.find((e) => e.item.customerId?.S === 'fixture-enterprise')?.item.banUntil?.N,
  );

  it('peek reads the windows and the ban as they were written, the sharded customer summed over its items', async () => {
    expect(await limiter.peek('fixture-free', FREE, NOW)).toMatchObject({
      windows: { minute: { limit: 60, remaining: 57, reset: minuteReset }, day: { limit: 1_000, remaining: 997 } },
      banUntil: null,
    });
    expect(await limiter.peek('fixture-enterprise', ENTERPRISE, NOW)).toMatchObject({
      windows: { minute: { remaining: 0 }, day: { remaining: 95 } },
      banUntil,
    });
    expect(banUntil).toBe(NOW_SECONDS + 900);
    expect(await limiter.peek('fixture-sharded', SHARDED, NOW)).toMatchObject({
      windows: { minute: { remaining: 90_000 - 7 }, day: { remaining: 1_000_000 - 7 } },
      banUntil: null,
    });
    // A minute of an earlier day is not this minute's count.
    expect(await limiter.peek('fixture-idle', FREE, NOW)).toMatchObject({
      windows: { minute: { remaining: 60 }, day: { remaining: 1_000 } },
    });
  });

  it('consume counts on the items as they were written, and refuses the banned customer until the ban ends', async () => {
    expect(await limiter.consume('fixture-free', FREE, NOW + 1_000)).toMatchObject({
      admitted: true,
      windows: { minute: { remaining: 56 } },
    });
    expect(await limiter.consume('fixture-enterprise', ENTERPRISE, NOW + 1_000)).toMatchObject({
      admitted: false,
      reason: 'banned',
      banUntil,
    });
    expect(await limiter.consume('fixture-enterprise', ENTERPRISE, banUntil * 1000)).toMatchObject({ admitted: true });
    expect(await limiter.consume('fixture-sharded', SHARDED, NOW + 1_000)).toMatchObject({ admitted: true });
    expect(await limiter.peek('fixture-sharded', SHARDED, NOW + 1_000)).toMatchObject({ windows: { minute: { remaining: 90_000 - 8 } } });
  });
});

describe('categories, through the category functions', () => {
  const post = (name: string) =>
    invoke(
      createCategory,
      proxyEvent({ method: 'POST', path: '/categories', body: JSON.stringify({ name }), headers: { 'Content-Type': 'application/json' } }),
    );

  it('lists them in id order with their names and descriptions, and nothing else', async () => {
    expect((await invoke(listCategories, proxyEvent({ path: '/categories' }))).body).toEqual([
      { id: 1, name: 'Dogs', description: 'Domestic dogs' },
      { id: 2, name: 'Cats' },
      { id: 3, name: 'Straße', description: 'A name whose lower case is not ASCII' },
      { id: 4, name: 'Birds' },
      { id: 5, name: 'Fish' },
    ]);
  });

  it("keeps the names the release reserved taken, and hands out the id after the release's counter", async () => {
    for (const taken of ['DOGS', ' cats ', 'STRAßE'])
      expect(await post(taken)).toMatchObject({ status: 409, body: { code: 'CATEGORY_EXISTS' } });
    expect(await post('Hamsters')).toMatchObject({ status: 201, body: { id: 6, name: 'Hamsters' } });
  });
});

describe('idempotency records as Powertools wrote them, through createCategory', () => {
  // The caller the records belong to: the key of a record is its customer's and the Idempotency-Key together.
  const creator = { customerId: 'fixture-creator', keyId: 'key_fixture', plan: 'pro', perMinute: '300', perDay: '10000' };
  const retry = (idempotencyKey: string, name: string) =>
    invoke(
      createCategory,
      proxyEvent({
        method: 'POST',
        path: '/categories',
        body: JSON.stringify({ name }),
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
        authorizer: creator,
      }),
    );

  it('replays a completed record: its answer, marked as a replay, and nothing created', async () => {
    const before = (await invoke(listCategories, proxyEvent({ path: '/categories' }))).body;
    const replay = await retry('fixture-completed', 'Birds');
    expect(replay).toMatchObject({ status: 201, body: { id: 4, name: 'Birds' } });
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await invoke(listCategories, proxyEvent({ path: '/categories' }))).body).toEqual(before);
  });

  it('refuses the same key with another body, and answers 409 while the recorded request still runs', async () => {
    expect(await retry('fixture-completed', 'Parrots')).toMatchObject({ status: 422, body: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    const inProgress = await retry('fixture-in-progress', 'Fish');
    expect(inProgress).toMatchObject({ status: 409, body: { code: 'IDEMPOTENCY_IN_PROGRESS' } });
    expect(inProgress.headers.get('Retry-After')).toBe('1');
  });
});
