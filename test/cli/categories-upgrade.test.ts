/**
 * The upgrade of names stored by the previous release, which compared them ignoring case only: its items are written
 * here with PutItem exactly as its store wrote them (the counter, a NAME# reservation per name, the category without
 * a creator). `categories reserve-names` then reserves each name under NFKC_Casefold and reports the collisions,
 * merging nothing; once an operator has renamed or deleted all but one of each, it reports none and the table
 * holds every reservation the rule needs.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { handler as list } from '../../functions/list-categories.js';
import { listCategories } from '../../lib/routes.js';
import { successBody } from '../support/answer.js';
import { categoryIntegrity, scanTable } from '../support/category-integrity.js';
import { petstore } from '../support/cli.js';
import { testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { invoke, jsonPost, proxyEvent } from '../support/events.js';

const table = testTable('CATEGORIES_TABLE');

/** The previous release's items, as its store wrote them (lib/categories/store.ts before names were folded). */
const STORED = [
  { id: 1, name: 'Straße', description: 'Streets' },
  { id: 2, name: 'STRASSE' },
  { id: 3, name: 'ﬁsh' },
  { id: 4, name: 'fish' },
  { id: 5, name: 'Dog' },
  // The previous release accepted invisible characters: this one is "Dog" under the rule.
  { id: 6, name: 'Dog\u200b' },
  { id: 7, name: 'Cat' },
];

async function writePreviousRelease() {
  for (const { id, name, description } of STORED) {
    const key = name.normalize('NFC').trim().toLowerCase().normalize('NFC');
    await testDb.send(new PutCommand({ TableName: table, Item: { pk: `NAME#${key}`, sk: 0, categoryId: id } }));
    await testDb.send(
      new PutCommand({
        TableName: table,
        Item: { pk: 'CATEGORY', sk: id, id, name, ...(description ? { description } : {}), createdAt: '2026-01-02T03:04:05.000Z' },
      }),
    );
  }
  await testDb.send(new PutCommand({ TableName: table, Item: { pk: 'COUNTER', sk: 0, lastId: STORED.length } }));
}

async function cli(...args: string[]) {
  const result = await petstore(...args, '--json');
  if (result.code !== 0) throw new Error(`petstore ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const post = (name: string) => invoke(create, jsonPost(JSON.stringify({ name })));
const listed = async () => successBody(listCategories, await invoke(list, proxyEvent()));
const collisionIds = (report: { collisions: { categories: { id: number }[] }[] }) =>
  report.collisions.map((c) => c.categories.map((category) => category.id));

beforeAll(writePreviousRelease);

describe("the previous release's categories, read by this one", () => {
  it('are listed as they were stored', async () => {
    expect(await listed()).toEqual(STORED.map(({ id, name, description }) => ({ id, name, ...(description ? { description } : {}) })));
  });

  it("are protected by their NAME# reservations before the upgrade step (the previous release's rule)", async () => {
    expect((await post('straße')).status).toBe(409);
    expect((await post('DOG')).status).toBe(409);
  });

  it('take the next id on the counter the previous release left', async () => {
    const answer = await post('Parrot');
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ id: STORED.length + 1 });
  });
});

describe('categories reserve-names', () => {
  it('reports each name held by more than one category, merging nothing, and reserves the oldest of each', async () => {
    const report = await cli('categories', 'reserve-names');
    expect(report.checked).toBe(STORED.length + 1);
    expect(collisionIds(report)).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(report.collisions.map((c: { folded: string; holder: number }) => [c.folded, c.holder])).toEqual([
      ['strasse', 1],
      ['fish', 3],
      ['dog', 5],
    ]);
    // Every category but the newer of each pair got its reservation now; "Parrot" was created with one.
    expect(report.reserved.map((c: { id: number }) => c.id)).toEqual([1, 3, 5, 7]);
    // Nothing merged, renamed or deleted.
    expect((await listed()).map((c) => c.name)).toEqual([...STORED.map((c) => c.name), 'Parrot']);
  });

  it('from then on protects the old names under the rule too', async () => {
    expect((await post('ＳＴＲＡＳＳＥ')).status).toBe(409);
    expect((await post('FISH')).status).toBe(409);
    expect((await post('Ｃａｔ')).status).toBe(409);
  });

  it('prints the collisions for a person, and says how to resolve them', async () => {
    const { code, stdout } = await petstore('categories', 'reserve-names');
    expect(code).toBe(0);
    expect(stdout).toContain('checked 8 categories in production: reserved 0 names now, the others were reserved already');
    expect(stdout).toContain('3 names are held by more than one category (rename or delete all but one of each, then run this again):');
    expect(stdout).toContain('  "strasse": 1 "Straße" (by unknown, holds the name), 2 "STRASSE" (by unknown)');
  });

  it('after an operator renames or deletes all but one of each, reports none, and every reservation is in place', async () => {
    await cli('categories', 'rename', '2', 'Strasse (old)');
    await cli('categories', 'delete', '4');
    await cli('categories', 'delete', '5');
    const report = await cli('categories', 'reserve-names');
    expect(report.collisions).toEqual([]);
    // "Dog\u200b" is the one "dog" left: the name's reservation went with the deleted 5, and is now 6's.
    expect(report.reserved.map((c: { id: number }) => c.id)).toEqual([6]);
    const integrity = await categoryIntegrity(testDb, table);
    expect(integrity.problems).toEqual([]);
    expect((await post('dog')).status).toBe(409);
  });

  it('writes only reservations and the counts of changes made through the CLI: items the previous release reads as before', async () => {
    const items = await scanTable(testDb, table);
    const kinds = new Set(items.map((i) => String(i.pk).replace(/#.*/, '#')));
    expect(kinds).toEqual(new Set(['COUNTER', 'CATEGORY', 'NAME#', 'FOLDED#', 'CREATOR#']));
    // What the previous release reads of a category and of a name reservation is unchanged in shape.
    for (const item of items.filter((i) => i.pk === 'CATEGORY')) expect(item).toMatchObject({ id: item.sk, name: expect.any(String) });
    for (const item of items.filter((i) => String(i.pk).startsWith('NAME#')))
      expect(item).toEqual({ pk: item.pk, sk: 0, categoryId: expect.any(Number) });
  });
});
