/**
 * The admin CLI: customers, keys and usage against DynamoDB Local, the key working on the API of its own environment
 * only, revocation, and bad input exiting 2 without writing anything. Most tests call `main` in-process; the last
 * describe runs `npm run petstore` as a process, as an operator does.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { stageCapacity } from '../../lib/stacks.js';
import { errorBody } from '../support/answer.js';
import { petstore, petstoreProcess, tableContents } from '../support/cli.js';
import { useGateway } from '../support/http.js';

const { call } = useGateway();

describe('petstore CLI: customers, keys, revocation', () => {
  let apiKey: string;
  let keyId: string;

  beforeAll(async () => {
    const plan = await petstore('customers', 'set-plan', 'acme', 'free', '--json');
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout)).toEqual({
      customerId: 'acme',
      plan: 'free',
      perMinute: 60,
      perDay: 1000,
      stage: 'production',
      usagePlan: 'free',
    });
    const created = await petstore('keys', 'create', 'acme', '--name', 'ci key', '--json');
    expect(created.code).toBe(0);
    const output = JSON.parse(created.stdout);
    expect(Object.keys(output).sort()).toEqual(['apiKey', 'customerId', 'keyId', 'plan', 'stage']);
    expect(output).toMatchObject({ customerId: 'acme', plan: 'free', stage: 'production', keyId: expect.stringMatching(/^key_/) });
    apiKey = output.apiKey;
    keyId = output.keyId;
  });

  it('issues a production key that works on production', async () => {
    expect(apiKey).toMatch(/^pet_live_[0-9A-Za-z]{36}$/);
    const answer = await call('/rate-limit', { key: apiKey });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ customerId: 'acme', plan: 'free', minute: { limit: 60 }, day: { limit: 1000 } });
  });

  it('a staging key of the same customer gets 401 on production', async () => {
    expect((await petstore('customers', 'set-plan', 'acme', 'free', '--stage', 'staging')).code).toBe(0);
    const staging = JSON.parse((await petstore('keys', 'create', 'acme', '--stage', 'staging', '--json')).stdout);
    expect(staging.apiKey).toMatch(/^pet_test_/);
    const answer = await call('/categories', { key: staging.apiKey });
    expect(answer.status).toBe(401);
    expect(errorBody(answer).message).toMatch(/other environment/);
  });

  it('lists keys without showing them, then revokes: 401 from then on', async () => {
    const listed = await petstore('keys', 'list', 'acme', '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(apiKey);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ keyId, customerId: 'acme', status: 'active', name: 'ci key' }),
    );

    const revoked = await petstore('keys', 'revoke', keyId);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(keyId);
    const answer = await call('/categories', { key: apiKey });
    expect(answer.status).toBe(401);
    expect(errorBody(answer).message).toMatch(/revoked/);
    expect(JSON.parse((await petstore('keys', 'list', 'acme', '--json')).stdout)).toContainEqual(
      expect.objectContaining({ keyId, status: 'revoked' }),
    );
  });

  it('sets enterprise limits, and changes plans', async () => {
    const result = await petstore(
      'customers',
      'set-plan',
      'bigco',
      'enterprise',
      '--per-minute',
      '5000',
      '--per-day',
      '2000000',
      '--allow-listed',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ plan: 'enterprise', perMinute: 5000, perDay: 2000000 });
    const downgraded = JSON.parse((await petstore('customers', 'set-plan', 'bigco', 'pro', '--json')).stdout);
    expect(downgraded).toMatchObject({ plan: 'pro', perMinute: 300, perDay: 10000 });
  });

  it("accepts an Enterprise limit up to what the stage admits for one customer: cdk.json's throttle × 60 a minute", async () => {
    const { perMinute, perDay } = stageCapacity(cdkJsonStage('production').throttleRateLimit);
    const args = ['customers', 'set-plan', 'hugeco', 'enterprise', '--per-minute', String(perMinute), '--per-day', String(perDay)];
    // Above what one address may send: sold with the allow-list (test/cli/gateway-keys.test.ts).
    const result = await petstore(...args, '--allow-listed', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ perMinute, perDay });
  });

  it.each(['production', 'staging'] as const)(
    'refuses, in %s, a limit above what the stage admits, naming its throttle and capacity, and writes nothing',
    async (stage) => {
      const rate = cdkJsonStage(stage).throttleRateLimit;
      const { perMinute, perDay } = stageCapacity(rate);
      for (const [minute, day, capacity] of [
        [perMinute + 1, perDay, `${perMinute} a minute`],
        [perMinute, perDay + 1, `${perDay} a day`],
      ] as const) {
        const customerId = `oversold-${stage}-${minute}`;
        const result = await petstore(
          'customers',
          'set-plan',
          customerId,
          'enterprise',
          '--per-minute',
          String(minute),
          '--per-day',
          String(day),
          '--stage',
          stage,
        );
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(capacity);
        expect(result.stderr).toContain(`its throttle is ${rate} requests a second (cdk.json petstore.${stage}.throttleRateLimit)`);
        expect(result.stderr).toMatch(/raise throttleRateLimit .* API Gateway throttle quota/);
        expect((await petstore('customers', 'show', customerId, '--stage', stage)).code).toBe(2);
      }
    },
  );

  it('shows usage and lifts a ban that is not there', async () => {
    const usage = await petstore('usage', 'acme', '--json');
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject({ customerId: 'acme', plan: 'free', ban: { active: false, until: null } });
    const unban = await petstore('unban', 'acme', '--json');
    expect(JSON.parse(unban.stdout)).toEqual({ customerId: 'acme', wasBanned: false });
  });
});

describe('petstore CLI: bad input exits 2, says why, writes nothing', () => {
  it.each<[string[], RegExp]>([
    [[], /Usage/],
    [['frobnicate'], /unknown command/],
    [['customers'], /unknown command/],
    [['customers', 'set-plan'], /needs 2 arguments/],
    [['customers', 'set-plan', 'acme2'], /needs 2 arguments/],
    [['customers', 'set-plan', 'acme2', 'gold'], /unknown plan "gold"/],
    [['customers', 'set-plan', 'acme2', 'enterprise'], /needs both --per-minute and --per-day/],
    [['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '10'], /needs both/],
    [['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', 'ten', '--per-day', '100'], /whole number/],
    [
      ['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '0', '--per-day', '100'],
      /--per-minute must be a positive whole number/,
    ],
    [
      ['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '-5', '--per-day', '100'],
      /--per-minute must be a positive whole number/,
    ],
    [['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '500', '--per-day', '100'], /cannot exceed/],
    [['customers', 'set-plan', 'acme2', 'free', '--per-minute', '500'], /enterprise plan only/],
    [['customers', 'set-plan', 'bad id!', 'free'], /customerId/],
    [['customers', 'set-plan', 'acme2', 'free', 'extra'], /at most 2/],
    [['customers', 'set-plan', 'acme2', 'free', '--stage', 'prod'], /--stage must be/],
    [['customers', 'set-plan', 'acme2', 'free', '--colour', 'red'], /unknown option "--colour"/],
    [['keys', 'create'], /needs 1 argument/],
    [['keys', 'create', 'nobody-here'], /no customer "nobody-here"/],
    [['keys', 'create', 'acme2', '--name', ''], /--name/],
    [['keys', 'create', 'acme2', '--per-day', '5'], /does not apply/],
    [['keys', 'revoke', 'not-a-key-id'], /keyId/],
    [['keys', 'revoke', 'key_0000000000000000'], /no key "key_0000000000000000"/],
    [['keys', 'list', 'a', 'b'], /at most 1/],
    [['usage'], /needs a customerId, or --month/],
    [['usage', 'nobody-here'], /no customer/],
    [['unban', 'nobody-here'], /no customer/],
    // Every command with its argument missing, malformed and out of range (added with the reliability suite).
    [
      ['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '10', '--per-day', '1000000001'],
      /--per-day must be at most what the production stage admits for one customer, \d+ a day/,
    ],
    [['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '1.5', '--per-day', '100'], /whole number/],
    // Past what the counters can carry (lib/rate-limit/shards.ts) and what the stage admits: refused, naming the
    // smaller ceiling, the stage's (arguments.test.ts has the rate limiter's, where it is the smaller).
    [
      ['customers', 'set-plan', 'acme2', 'enterprise', '--per-minute', '600001', '--per-day', '1000000'],
      /--per-minute must be at most what the production stage admits for one customer, \d+ a minute/,
    ],
    [['customers', 'set-plan', 'x'.repeat(65), 'free'], /customerId/],
    [['keys', 'create', 'bad id!'], /customerId/],
    [['keys', 'create', 'acme2', '--name', 'tab\there'], /--name/],
    [['keys', 'create', 'acme2', '--name', 'n'.repeat(101)], /--name/],
    [['keys', 'list', 'bad id!'], /customerId/],
    [['keys', 'revoke'], /needs 1 argument/],
    [['keys', 'revoke', 'key_short'], /keyId/],
    [['keys', 'frobnicate'], /unknown command/],
    [['usage', 'bad id!'], /customerId/],
    [['usage', 'acme', 'extra'], /at most 1/],
    [['unban'], /needs 1 argument/],
    [['unban', 'bad id!'], /customerId/],
    [['unban', 'acme', '--stage', ''], /--stage must be/],
    // Issue 16: expiry, roll, customers' lifecycle, usage history, audit.
    [['keys', 'create', 'acme2', '--expires-in', '0d'], /--expires-in must be between 1m and 3650d/],
    [['keys', 'create', 'acme2', '--expires-in', '3651d'], /--expires-in must be between/],
    [['keys', 'create', 'acme2', '--expires-in', '90'], /--expires-in must be a number of days, hours or minutes/],
    [['keys', 'create', 'acme2', '--expires-at', '2020-01-01'], /--expires-at must be in the future/],
    [['keys', 'create', 'acme2', '--expires-at', 'tomorrow'], /--expires-at must be a date/],
    [['keys', 'create', 'acme2', '--expires-at', '2030-02-30'], /--expires-at must be a date/],
    [['keys', 'create', 'acme2', '--expires-at', '2030-01-01T10:00'], /--expires-at must be a date .* with its offset/],
    [['keys', 'create', 'acme2', '--expires-in', '1d', '--expires-at', '2030-01-01'], /not both/],
    [['keys', 'create', 'nobody-here', '--expires-in', '1d'], /no customer "nobody-here"/],
    [['keys', 'roll'], /needs 1 argument/],
    [['keys', 'roll', 'nope'], /keyId/],
    [['keys', 'roll', 'key_0000000000000000'], /no key "key_0000000000000000"/],
    [['keys', 'roll', 'key_0000000000000000', '--grace', '31d'], /--grace must be between 0 and 30d/],
    [['keys', 'roll', 'key_0000000000000000', '--grace', 'soon'], /--grace must be/],
    [['keys', 'roll', 'key_0000000000000000', '--reason', 'x'], /does not apply/],
    [['customers', 'list', 'acme'], /at most 0 arguments/],
    [['customers', 'show'], /needs 1 argument/],
    [['customers', 'show', 'nobody-here'], /no customer/],
    [['customers', 'suspend'], /needs 1 argument/],
    [['customers', 'suspend', 'nobody-here'], /no customer/],
    [['customers', 'suspend', 'acme', '--reason', ''], /--reason/],
    [['customers', 'suspend', 'acme', '--reason', 'a\u0007b'], /--reason/],
    [['customers', 'suspend', 'acme', '--reason', 'r'.repeat(501)], /--reason/],
    [['customers', 'resume'], /needs 1 argument/],
    [['customers', 'resume', 'nobody-here'], /no customer/],
    [['usage', 'acme', '--from', '2026-02-30'], /--from must be a day/],
    [['usage', 'acme', '--to', '20260101'], /--to must be a day/],
    [['usage', 'acme', '--from', '2026-03-02', '--to', '2026-03-01'], /--from 2026-03-02 is after --to 2026-03-01/],
    [['usage', 'acme', '--from', '2999-01-01'], /after today/],
    [['usage', 'acme', '--month', '2026-03'], /leave out the customerId/],
    [['usage', '--csv'], /needs a customerId, or --month/],
    [['usage', '--month', '2026-13'], /--month must be a month/],
    [['usage', '--month', '2999-01'], /has not started/],
    [['usage', '--month', '2026-01', '--from', '2026-01-01'], /for one customer/],
    [['usage', '--month', '2026-01', '--csv', '--json'], /not both/],
    [['audit', 'acme'], /at most 0 arguments/],
    [['audit', '--customer', 'bad id!'], /--customer/],
    [['audit', '--since', 'yesterday'], /--since must be a date/],
    [['audit', '--since', '2999-01-01'], /in the future/],
  ])('%j', async (args, message) => {
    const before = await tableContents();
    const result = await petstore(...args);
    expect(result.code).toBe(2);
    expect(result.stderr + result.stdout).toMatch(message);
    expect(result.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(await tableContents()).toBe(before);
  });

  it('--json errors are one JSON object', async () => {
    const result = await petstore('keys', 'create', 'nobody-here', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({ error: 'USAGE', message: expect.stringMatching(/no customer/) });
  });
});

describe('petstore CLI as a process (npm run petstore)', () => {
  it('creates a customer and a key without STAGE set, and the key works on production', async () => {
    const plan = await petstoreProcess(['customers', 'set-plan', 'proc-co', 'pro', '--json']);
    expect(plan).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ customerId: 'proc-co', plan: 'pro', perMinute: 300, perDay: 10000, stage: 'production', usagePlan: 'pro' })}\n`,
      stderr: '',
    });
    // The script npm runs, without npm's own start: the npm path is the call above.
    const created = await petstoreProcess(['keys', 'create', 'proc-co', '--json'], {}, 'node');
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const { apiKey } = JSON.parse(created.stdout);
    expect(apiKey).toMatch(/^pet_live_/);
    expect((await call('/rate-limit', { key: apiKey })).body).toMatchObject({ customerId: 'proc-co', plan: 'pro' });
  });

  it('bad input exits 2 with the message and a pointer to --help on stderr, and writes nothing', async () => {
    const before = await tableContents();
    const result = await petstoreProcess(['customers', 'set-plan', 'proc-co', 'gold'], {}, 'node');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'petstore: unknown plan "gold": one of free, pro, business, enterprise\n(npm run petstore -- --help for usage)\n',
    });
    expect(await tableContents()).toBe(before);
  });

  it('exits 1 with one line when DynamoDB cannot be reached', async () => {
    const unreachable = await petstoreProcess(['usage', 'acme'], { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' }, 'node');
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim().split('\n')).toEqual([expect.stringMatching(/cannot reach local DynamoDB/)]);
  });
});
