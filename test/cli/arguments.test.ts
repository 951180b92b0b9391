/**
 * The admin CLI's reading of its arguments: a flag given twice, a value that looks like an option, text a reader
 * cannot see as what it is (control and invisible characters) and input echoed back, an unknown customer on every
 * command that names one, and the ceilings of an Enterprise limit. Each refusal exits 2, says what is wrong in words
 * and writes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { requireCapacity } from '../../lib/cli/commands/customers-set-plan.js';
import { stageCapacity } from '../../lib/stacks.js';
import { hiddenCharacter } from '../../lib/unicode/hidden.js';
import { petstore, tableContents } from '../support/cli.js';

let keyId: string;

beforeAll(async () => {
  expect((await petstore('customers', 'set-plan', 'argco', 'free')).code).toBe(0);
  const created = await petstore('keys', 'create', 'argco', '--json');
  expect(created.code).toBe(0);
  keyId = JSON.parse(created.stdout).keyId;
});

/** Runs the command and checks that it exits 2 with `message` and at most two lines, having written nothing. */
async function refused(args: readonly string[], message: RegExp): Promise<string> {
  const before = await tableContents();
  const result = await petstore(...args);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
  expect(await tableContents()).toBe(before);
  return result.stderr;
}

describe('petstore CLI: a flag given twice', () => {
  it.each<[string, string[]]>([
    ['--stage', ['customers', 'set-plan', 'dup1', 'free', '--stage', 'staging', '--stage', 'production']],
    ['--stage', ['customers', 'set-plan', 'dup1', 'free', '--stage=staging', '--stage=production']],
    ['--per-minute', ['customers', 'set-plan', 'dup1', 'enterprise', '--per-minute', '10', '--per-day', '100', '--per-minute', '20']],
    ['--per-day', ['customers', 'set-plan', 'dup1', 'enterprise', '--per-day=100', '--per-minute', '10', '--per-day', '200']],
    ['--expires-in', ['keys', 'create', 'argco', '--expires-in', '1m', '--expires-in', '2m']],
    ['--name', ['keys', 'create', 'argco', '--name', 'a', '--name=a']],
    ['--json', ['keys', 'create', 'argco', '--json', '--json']],
    ['--aws', ['customers', 'list', '--aws', '--aws']],
    ['--yes', ['categories', 'delete', '--created-by', 'argco', '--yes', '--yes']],
    ['--reason', ['customers', 'suspend', 'argco', '--reason', 'a', '--reason', 'b']],
  ])('%s: exits 2 naming it, before anything is read or written', async (flag, args) => {
    await refused(args, new RegExp(`${flag} was given twice: give it once`));
  });

  it('keys roll --name twice rolls nothing', async () => {
    await refused(['keys', 'roll', keyId, '--name', 'a', '--name', 'b'], /--name was given twice: give it once/);
    expect(JSON.parse((await petstore('keys', 'list', 'argco', '--json')).stdout)).toEqual([
      expect.objectContaining({ keyId, status: 'active' }),
    ]);
  });

  it('a flag given once, in either form, is read', async () => {
    const result = await petstore('keys', 'create', 'argco', '--name=billing', '--expires-in', '2m', '--json');
    expect(result.code).toBe(0);
    const listed = JSON.parse((await petstore('keys', 'list', 'argco', '--json')).stdout);
    expect(listed).toContainEqual(expect.objectContaining({ keyId: JSON.parse(result.stdout).keyId, name: 'billing' }));
  });
});

describe('petstore CLI: options and their values, in our own words', () => {
  it.each<[string[], RegExp]>([
    [['customers', 'list', '-j'], /^petstore: unknown option "-j"$/m],
    [['customers', 'list', '--colour', 'red'], /^petstore: unknown option "--colour"$/m],
    [['customers', 'list', '--json=yes'], /^petstore: --json takes no value, got "--json=yes"$/m],
    [['keys', 'create', 'argco', '--name'], /^petstore: --name needs a value$/m],
    [['keys', 'create', 'argco', '--name', '--aws'], /^petstore: --name needs a value: "--aws" is an option/m],
    [
      ['customers', 'set-plan', 'neg', 'enterprise', '--per-minute', '-5', '--per-day', '100'],
      /--per-minute must be a positive whole number, got "-5"/,
    ],
    [
      ['customers', 'set-plan', 'neg', 'enterprise', '--per-minute=-5', '--per-day', '100'],
      /--per-minute must be a positive whole number, got "-5"/,
    ],
    [['keys', 'roll', 'key_0000000000000000', '--grace', '-1h'], /--grace must not be negative, got "-1h"/],
    [['keys', 'create', 'argco', '--expires-in', '-1d'], /--expires-in must be positive, got "-1d"/],
    [['keys', 'create', 'argco', '--expires-in', '99999999999d'], /--expires-in must be between 1m and 3650d, got 99999999999 days/],
    [['usage', 'argco', '--to', '2999-01-01'], /^petstore: --to 2999-01-01 is after today \(\d{4}-\d\d-\d\d\)/m],
  ])('%j', async (args, message) => {
    const stderr = await refused(args, message);
    expect(stderr).not.toMatch(/ambiguous|'-- |--from \d/);
  });
});

describe('petstore CLI: text a reader cannot see as what it is', () => {
  it.each<[string[], RegExp]>([
    [['keys', 'create', 'argco', '--name', '\u202eevil'], /--name must not contain invisible characters .*\(found U\+202E\)/],
    [['keys', 'create', 'argco', '--name', 'zero\u200bwidth'], /--name must not contain invisible characters .*\(found U\+200B\)/],
    [['keys', 'roll', 'key_0000000000000000', '--name', 'a\u2066b'], /--name must not contain invisible characters .*\(found U\+2066\)/],
    [['keys', 'create', 'argco', '--name', 'red\u001b[31m'], /--name must not contain control characters \(found U\+001B\)/],
    [['keys', 'create', 'argco', '--name', 'csi\u009b2J'], /--name must not contain control characters \(found U\+009B\)/],
    [['keys', 'create', 'argco', '--name', ''], /--name must not be empty/],
    [['keys', 'create', 'argco', '--name', 'n'.repeat(101)], /--name must be at most 100 characters, got 101/],
    [['customers', 'suspend', 'argco', '--reason', 'unpaid\u202e'], /--reason must not contain invisible characters .*\(found U\+202E\)/],
    [
      ['customers', 'suspend', 'argco', '--reason', 'line\u2028break'],
      /--reason must not contain invisible characters .*\(found U\+2028\)/,
    ],
    [['customers', 'suspend', 'argco', '--reason', 'bell\u0007'], /--reason must not contain control characters \(found U\+0007\)/],
    [['customers', 'suspend', 'argco', '--reason', 'r'.repeat(501)], /--reason must be at most 500 characters, got 501/],
    [['categories', 'delete', '--created-by', 'argco', '--reason', '\u200f'], /--reason must not contain invisible characters/],
    [['keys', 'create', 'argco', '--name', 'blank\u2800'], /--name must not contain invisible characters .*\(found U\+2800\)/],
    [['keys', 'create', 'argco', '--name', '\uffa0'], /--name must not contain invisible characters .*\(found U\+FFA0\)/],
    [['keys', 'create', 'argco', '--name', '\u0301\u0302'], /--name must show something: it holds only combining marks.*\(found U\+0301\)/],
    [['customers', 'suspend', 'argco', '--reason', '\u2800'], /--reason must not contain invisible characters .*\(found U\+2800\)/],
    [
      ['customers', 'suspend', 'argco', '--reason', ' \u20dd '],
      /--reason must show something: it holds only combining marks.*\(found U\+20DD\)/,
    ],
  ])('%j is refused, naming the character', async (args, message) => {
    const stderr = await refused(args, message);
    expect(stderr).not.toMatch(/Invalid|Expected|received/);
    expect(hiddenCharacter(stderr.replaceAll('\n', ''))).toBeUndefined();
  });

  it.each<[string[], string]>([
    [['fro\u001b[2Jb'], '"fro\\u001b[2Jb"'],
    [['customers', 'set-plan', 'argco', 'gold\u202e'], '"gold\\u202e"'],
    [['customers', 'list', '--x\u001b]0;pwned\u0007'], '"--x\\u001b]0;pwned\\u0007"'],
    [['customers', 'show', 'bad\u009bid'], '"bad\\u009bid"'],
    [['customers', 'show', 'argco', 'extra\u202e'], '"extra\\u202e"'],
    [['customers', 'list', '--stage', 'prod\u001b'], '"prod\\u001b"'],
    [['usage', 'argco', '--from', '\u202e2026-01-01'], '"\\u202e2026-01-01"'],
    [['categories', 'rename', '1', 'Dog\u202e'], '"Dog\\u202e"'],
  ])('%j is echoed escaped', async (args, shown) => {
    const stderr = await refused(args, /./);
    expect(stderr).toContain(shown);
    expect(hiddenCharacter(stderr.replaceAll('\n', ''))).toBeUndefined();
  });
});

describe('petstore CLI: an unknown customer', () => {
  it.each([
    [['keys', 'list', 'nobody-here']],
    [['audit', '--customer', 'nobody-here']],
    [['categories', 'list', '--created-by', 'nobody-here']],
    [['keys', 'list', 'argco', '--stage', 'staging']],
  ])('%j exits 2', async (args) => {
    await refused(args, /no customer "(nobody-here|argco)" in (production|staging)/);
  });

  it('a known customer with nothing to show exits 0', async () => {
    expect((await petstore('audit', '--customer', 'argco')).code).toBe(0);
    expect((await petstore('categories', 'list', '--created-by', 'argco')).code).toBe(0);
  });
});

describe('petstore CLI: the ceiling of an Enterprise limit', () => {
  const production = stageCapacity(cdkJsonStage('production').throttleRateLimit);

  it.each<[string, string, string]>([
    ['600001', '1000000', `${production.perMinute} a minute`],
    ['99999999999999999999', '1000000', `${production.perMinute} a minute`],
    ['1000', '1000000001', `${production.perDay} a day`],
  ])('--per-minute %s --per-day %s names the smaller ceiling, the stage’s %s', async (perMinute, perDay, ceiling) => {
    const args = ['customers', 'set-plan', 'ceilco', 'enterprise', '--per-minute', perMinute, '--per-day', perDay];
    const stderr = await refused(args, new RegExp(ceiling));
    expect(stderr).not.toMatch(/600000|1000000000\b/);
  });

  it('names the rate limiter’s ceiling where it is the smaller one', () => {
    const throttle = { rateLimit: 20_000, source: 'test' };
    expect(() => requireCapacity('enterprise', { perMinute: 600_001, perDay: 1_000_000 }, 'production', throttle)).toThrow(
      /--per-minute must be at most 600000, the most the rate limiter delivers \(/,
    );
    expect(() => requireCapacity('enterprise', { perMinute: 1_000, perDay: 1_000_000_001 }, 'production', throttle)).toThrow(
      /--per-day must be at most 1000000000, the most the rate limiter counts$/,
    );
    expect(() => requireCapacity('enterprise', { perMinute: 600_000, perDay: 1_000_000_000 }, 'production', throttle)).not.toThrow();
  });
});
