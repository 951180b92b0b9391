/**
 * Moderation through the admin CLI against DynamoDB Local: `categories list`, `rename`, `delete` (one, or all of a
 * customer's behind --yes), each change audited under the category's creator; bad input exits 2 having written
 * nothing. Categories are created as customers create them, through the createCategory handler.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { createCategory } from '../../lib/routes.js';
import { successBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { petstore, petstoreProcess } from '../support/cli.js';
import { testAuthStore, testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { type Answer, invoke, proxyEvent, TEST_AUTHORIZER } from '../support/events.js';

const table = testTable('CATEGORIES_TABLE');
const run = randomUUID().slice(0, 6);
const alice = `alice-${run}`;
const bob = `bob-${run}`;

async function postAs(customerId: string, name: string): Promise<Answer> {
  return invoke(
    create,
    proxyEvent({
      method: 'POST',
      path: '/categories',
      body: JSON.stringify({ name }),
      headers: { 'Content-Type': 'application/json' },
      authorizer: { ...TEST_AUTHORIZER, customerId },
    }),
  );
}

async function createAs(customerId: string, name: string): Promise<number> {
  const answer = await postAs(customerId, name);
  return successBody(createCategory, answer).id;
}

async function cli(...args: string[]) {
  const result = await petstore(...args, '--json');
  if (result.code !== 0) throw new Error(`petstore ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Every item of the categories and audit tables: what "wrote nothing" is checked against. */
async function everything() {
  const scan = async (TableName: string) =>
    ((await testDb.send(new ScanCommand({ TableName, ConsistentRead: true }))).Items ?? []).sort((a, b) =>
      JSON.stringify([a.pk ?? a.customerId, a.sk]).localeCompare(JSON.stringify([b.pk ?? b.customerId, b.sk])),
    );
  return { categories: await scan(table), audit: await scan(testTable('AUDIT_TABLE')) };
}

async function expectUsageError(args: string[], message: RegExp) {
  const before = await everything();
  const result = await petstore(...args);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe('');
  expect(await everything()).toEqual(before);
}

/** Set before the tests: the ids of the three categories every test starts from. */
const ids = { dog: 0, cat: 0, fish: 0 };
beforeAll(async () => {
  // Customers as the authorizer admits them: stored ones (a command naming an unknown customer exits 2).
  await Promise.all([testAuthStore.setPlan(alice, 'free'), testAuthStore.setPlan(bob, 'free')]);
  ids.dog = await createAs(alice, 'Dog');
  ids.cat = await createAs(alice, 'Cat');
  ids.fish = await createAs(bob, 'Fish');
});

describe('categories list', () => {
  it('lists every category with its creator and creation time, in id order', async () => {
    const rows = await cli('categories', 'list');
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: ids.dog, name: 'Dog', createdBy: alice, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
        { id: ids.fish, name: 'Fish', createdBy: bob, createdAt: expect.any(String) },
      ]),
    );
    expect(rows.map((r: { id: number }) => r.id)).toEqual([...rows.map((r: { id: number }) => r.id)].sort((a, b) => a - b));
  });

  it('--created-by shows one customer’s; the text output has a header and one line each', async () => {
    expect((await cli('categories', 'list', '--created-by', alice)).map((r: { name: string }) => r.name)).toEqual(['Dog', 'Cat']);
    const text = (await petstore('categories', 'list', '--created-by', bob)).stdout.trimEnd().split('\n');
    expect(text).toHaveLength(2);
    expect(text[0]).toMatch(/^\s+ID {2}CREATED BY\s+CREATED\s+NAME$/);
    expect(text[1]).toMatch(new RegExp(`^\\s+${ids.fish} {2}${bob}\\s+\\S+\\s+"Fish"$`));
    const carol = `carol-${run}`;
    await testAuthStore.setPlan(carol, 'free');
    expect((await petstore('categories', 'list', '--created-by', carol)).stdout).toBe(`no categories created by ${carol}\n`);
    expect((await petstore('categories', 'list', '--created-by', 'nobody-at-all')).code).toBe(2);
  });

  it('refuses a malformed customer id with exit 2', async () => {
    await expectUsageError(['categories', 'list', '--created-by', 'has space'], /--created-by: a customer id is 1 to 64/);
  });
});

describe('categories rename', () => {
  it('renames under the rules of a create, frees the old name, takes the new one, and audits it under the creator', async () => {
    const id = await createAs(alice, 'Parrot');
    const renamed = await cli('categories', 'rename', String(id), '  Parrots  ', '--reason', 'plural');
    expect(renamed).toEqual({ id, name: 'Parrots', previousName: 'Parrot', changed: true });
    expect((await postAs(bob, 'PARROTS')).status).toBe(409);
    expect(await createAs(bob, 'parrot')).toBeGreaterThan(id);
    const [entry] = (await cli('audit', '--customer', alice)).filter((e: { action: string }) => e.action === 'category-rename');
    expect(entry).toMatchObject({
      customerId: alice,
      categoryId: id,
      action: 'category-rename',
      reason: 'plural',
      changes: { name: { from: 'Parrot', to: 'Parrots' } },
    });
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  });

  it('may change only case or form of the name it holds', async () => {
    const id = await createAs(alice, 'Strasse cats');
    expect(await cli('categories', 'rename', String(id), 'Straße Cats')).toMatchObject({ name: 'Straße Cats', changed: true });
    expect(await cli('categories', 'rename', String(id), 'Straße Cats')).toMatchObject({ changed: false });
    expect(await cli('categories', 'rename', String(id), '\u2028Straße Cats\u2029')).toMatchObject({ name: 'Straße Cats', changed: false });
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  });

  it.each<[[string], RegExp]>([
    [['Fish'], /cannot rename category \d+: category \d+ already has the name "Fish"/],
    [['ＦＩＳＨ'], /already has the name "ＦＩＳＨ"/],
    [['Dog\u200b'], /"name" must not contain invisible characters such as zero-width spaces or bidirectional controls \(found U\+200B\)/],
    [['\ufeffFish'], /"name" must not contain invisible characters such as zero-width spaces or bidirectional controls \(found U\+FEFF\)/],
    [['Fish\ufeff'], /\(found U\+FEFF\)/],
    [['   '], /"name" must not be empty or only white space/],
    [['x'.repeat(101)], /"name" must be at most 100 characters/],
    [['Tab\there'], /"name" must not contain control characters/],
    [['\u2800'], /"name" must not contain invisible characters .*\(found U\+2800\)/],
    [['Dog\u3164'], /"name" must not contain invisible characters .*\(found U\+3164\)/],
    [['\u0301\u0301'], /"name" must show something: it holds only combining marks, which display as blank \(found U\+0301\)/],
  ])('refuses %j with exit 2, writing nothing', async ([name], message) => {
    await expectUsageError(['categories', 'rename', String(ids.cat), name], message);
  });

  it('refuses an id that is not one, or of no category, with exit 2', async () => {
    await expectUsageError(['categories', 'rename', 'abc', 'Name'], /category id: a category id is a whole number from 1/);
    await expectUsageError(['categories', 'rename', '0', 'Name'], /category id/);
    await expectUsageError(['categories', 'rename', '99999', 'Name'], /no category 99999 in production/);
    await expectUsageError(['categories', 'rename', String(ids.cat)], /"categories rename" needs 2 arguments/);
  });
});

describe('categories delete', () => {
  it('deletes one category: its name is free again, its id is never reused, its creator gets its place back', async () => {
    const id = await createAs(bob, 'Hamster');
    const before = await categoryIntegrity(testDb, table);
    const deleted = await cli('categories', 'delete', String(id), '--reason', 'spam');
    expect(deleted).toMatchObject({ id, name: 'Hamster', createdBy: bob, deleted: true });
    const after = await categoryIntegrity(testDb, table);
    expect(after.problems).toEqual([]);
    expect(after.categories.map((c) => c.id)).not.toContain(id);
    expect(after.deleted).toBe(before.deleted + 1);
    const again = await createAs(alice, 'hamster');
    expect(again).toBeGreaterThan(before.lastId);
    const entries = (await cli('audit', '--customer', bob)).filter((e: { action: string }) => e.action === 'category-delete');
    expect(entries).toEqual([
      expect.objectContaining({ categoryId: id, customerId: bob, reason: 'spam', changes: { name: { from: 'Hamster', to: null } } }),
    ]);
  });

  it('--created-by without --yes lists what it would delete and exits 2 having written nothing', async () => {
    await expectUsageError(
      ['categories', 'delete', '--created-by', alice],
      new RegExp(
        `would delete \\d+ categories created by ${alice} in production: ${ids.dog} "Dog", ${ids.cat} "Cat", .*run again with --yes`,
      ),
    );
  });

  it('--created-by with --yes deletes all of that customer’s, counts them, audits each, and leaves the others', async () => {
    const theirs = (await cli('categories', 'list', '--created-by', alice)).map((r: { id: number }) => r.id);
    expect(theirs.length).toBeGreaterThan(2);
    const result = await cli('categories', 'delete', '--created-by', alice, '--yes');
    expect(result).toMatchObject({ createdBy: alice, deleted: theirs.length });
    expect(await cli('categories', 'list', '--created-by', alice)).toEqual([]);
    expect((await cli('categories', 'list', '--created-by', bob)).map((r: { name: string }) => r.name)).toContain('Fish');
    const audited = (await cli('audit', '--customer', alice)).filter((e: { action: string }) => e.action === 'category-delete');
    expect(audited.map((e: { categoryId: number }) => e.categoryId).sort()).toEqual([...theirs].sort());
    const text = (await petstore('categories', 'delete', '--created-by', alice, '--yes')).stdout;
    expect(text).toBe(`customer ${alice} created no categories in production: nothing deleted\n`);
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
    // Alice's allowance is whole again: her creator count is 0.
    expect(await createAs(alice, 'Dog')).toBeGreaterThan(ids.fish);
  });

  it('audits a category stored without a creator under "-", which `audit` lists with the rest', async () => {
    const { lastId } = await categoryIntegrity(testDb, table);
    const id = lastId + 1;
    // As the previous release stored a category: no createdBy, the counter moved with it.
    await testDb.send(
      new PutCommand({
        TableName: table,
        Item: { pk: 'COUNTER', sk: 0, lastId: id, deletedCount: (await categoryIntegrity(testDb, table)).deleted },
      }),
    );
    await testDb.send(new PutCommand({ TableName: table, Item: { pk: 'NAME#old timer', sk: 0, categoryId: id } }));
    await testDb.send(
      new PutCommand({ TableName: table, Item: { pk: 'CATEGORY', sk: id, id, name: 'Old Timer', createdAt: new Date().toISOString() } }),
    );
    expect(await cli('categories', 'list')).toContainEqual({ id, name: 'Old Timer', createdBy: null, createdAt: expect.any(String) });
    expect(await cli('categories', 'delete', String(id))).toMatchObject({ id, createdBy: null, deleted: true });
    const all = await cli('audit');
    expect(all).toContainEqual(expect.objectContaining({ customerId: '-', categoryId: id, action: 'category-delete' }));
    expect(all.some((e: { customerId: string }) => e.customerId === alice)).toBe(true);
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  });

  it('refuses bad combinations and unknown ids with exit 2', async () => {
    await expectUsageError(['categories', 'delete'], /give the id of the category to delete, or --created-by/);
    await expectUsageError(['categories', 'delete', String(ids.fish), '--created-by', bob], /not both/);
    await expectUsageError(['categories', 'delete', '12345678'], /no category 12345678 in production/);
    await expectUsageError(['categories', 'delete', '-1'], /unknown|category id/i);
  });

  it('works as the process an operator starts, with the exit code and output of the in-process CLI', async () => {
    const listed = await petstoreProcess(['categories', 'list', '--created-by', bob, '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((r: { name: string }) => r.name)).toContain('Fish');
    const refused = await petstoreProcess(['categories', 'delete', '--created-by', bob], {}, 'node');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/run again with --yes/);
  });
});
