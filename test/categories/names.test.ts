/**
 * One name, one category, through the real Middy chain against DynamoDB Local: names are compared under
 * NFKC_Casefold and stored as sent (trimmed of Unicode white space, NFC); invisible characters are refused naming the
 * field, the byte order mark at either end too.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { handler as list } from '../../functions/list-categories.js';
import { listCategories } from '../../lib/routes.js';
import { successBody } from '../support/answer.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { invoke, jsonPost, proxyEvent } from '../support/events.js';

const listAll = async () => successBody(listCategories, await invoke(list, proxyEvent()));
const post = (name: string) => invoke(create, jsonPost(JSON.stringify({ name })));
const integrity = () => categoryIntegrity(testDb, testTable('CATEGORIES_TABLE'));

describe('createCategory: names that look alike are one name', () => {
  it.each([
    ['Straße', 'STRASSE'],
    ['ﬁsh', 'fish'],
    ['ＣＡＴ', 'cat'],
    ['Ⅻ Legion', 'XII legion'],
    ['ΣΊΣΥΦΟΣ', 'σίσυφοσ'],
  ])('"%s" then "%s": 201, then 409 CATEGORY_EXISTS', async (first, second) => {
    const created = await post(first);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: first });
    const refused = await post(second);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 'CATEGORY_EXISTS', status: 409, message: expect.stringContaining(`"${second}" already exists`) });
    expect((await listAll()).filter((c) => c.name === second)).toEqual([]);
  });

  it('stores the name as sent (trimmed, NFC), not as compared', async () => {
    const answer = await post('  Große Hunde  ');
    expect(answer.body).toMatchObject({ name: 'Große Hunde' });
    expect((await listAll()).map((c) => c.name)).toContain('Große Hunde');
  });

  it.each([
    ['line separators U+2028', '\u2028Line Separated\u2028', 'Line Separated'],
    ['paragraph separators U+2029', '\u2029Paragraph Separated\u2029', 'Paragraph Separated'],
    ['no-break and ideographic spaces', '\u00a0\u3000Wide Spaced\u3000\u00a0', 'Wide Spaced'],
  ])('trims Unicode white space at either end, %s included: 201 with the trimmed name', async (_what, name, stored) => {
    const answer = await post(name);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: stored });
    expect((await listAll()).map((c) => c.name)).toContain(stored);
  });

  it('stores a description as sent, white space and byte order marks at its ends included', async () => {
    const description = '\ufeff Sent as is \u2028';
    const answer = await invoke(create, jsonPost(JSON.stringify({ name: 'Described', description })));
    expect(answer.body).toMatchObject({ name: 'Described', description });
  });

  it('"Straße" and "STRASSE" at once: one 201 and one 409', async () => {
    const answers = await Promise.all([post('Weißwurst'), post('WEISSWURST'), post('weisswurst')]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
  });

  it('a name whose folded form is too long for a key is still unique (reserved by its hash)', async () => {
    const name = '\ufdfa'.repeat(100);
    expect((await post(name)).status).toBe(201);
    expect((await post(name)).status).toBe(409);
    expect((await post('\ufdfa'.repeat(99))).status).toBe(201);
  });
});

describe('createCategory: invisible characters', () => {
  it.each([
    ['a zero-width space', 'Dog\u200b', 'U+200B'],
    ['a right-to-left override', '\u202egoD', 'U+202E'],
    ['a zero-width joiner', 'Cat\u200dDog', 'U+200D'],
    ['a byte order mark', 'Fi\ufeffsh', 'U+FEFF'],
    // Not white space (it is Cf), so not trimmed: refused at either end as in the middle.
    ['a byte order mark at the start', '\ufeffBOM Fish', 'U+FEFF'],
    ['a byte order mark at the end', 'BOM Fish\ufeff', 'U+FEFF'],
    ['a byte order mark among white space at the start', ' \ufeff BOM Fish ', 'U+FEFF'],
    ['a soft hyphen', 'Hams\u00adter', 'U+00AD'],
    ['a variation selector', 'Heart\ufe0f', 'U+FE0F'],
    ['a Hangul filler', '\u3164', 'U+3164'],
    ['the Hangul choseong filler', '\u115f', 'U+115F'],
    ['the Hangul jungseong filler inside a name', 'Ha\u1160ngul', 'U+1160'],
    ['the halfwidth Hangul filler', '\uffa0', 'U+FFA0'],
    ['the Braille blank alone', '\u2800', 'U+2800'],
    ['the Braille blank inside a name', 'Dog\u2800Cat', 'U+2800'],
    ['a line separator', 'Two\u2028Lines', 'U+2028'],
    ['a tag character', 'Flag\u{e0067}', 'U+E0067'],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field and the character', async (_what, name, codePoint) => {
    const before = await listAll();
    const answer = await post(name);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'VALIDATION_FAILED',
      status: 400,
      message: `"name" must not contain invisible characters such as zero-width spaces or bidirectional controls (found ${codePoint})`,
    });
    expect(await listAll()).toEqual(before);
  });

  it.each([
    ['one combining mark', '\u0301', 'U+0301'],
    ['several combining marks', '\u0308\u0301\u20dd', 'U+0308'],
    ['combining marks between spaces', ' \u0301 \u0302 ', 'U+0301'],
  ])('refuses a name of %s with 400 VALIDATION_FAILED naming the first mark: it shows nothing', async (_what, name, codePoint) => {
    const before = await listAll();
    const answer = await post(name);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'VALIDATION_FAILED',
      status: 400,
      message: `"name" must show something: it holds only combining marks, which display as blank (found ${codePoint})`,
    });
    expect(await listAll()).toEqual(before);
  });

  it('takes combining marks on a base character, even one at the start of a name', async () => {
    for (const name of [`Cafe\u0301 ${randomUUID().slice(0, 6)}`, `\u0301Accent ${randomUUID().slice(0, 6)}`]) {
      expect((await post(name)).status, JSON.stringify(name)).toBe(201);
    }
  });

  it('refuses U+0085 at either end as a control character: Unicode White_Space, but not trimmed', async () => {
    for (const name of ['\u0085Next Line', 'Next Line\u0085']) {
      expect((await post(name)).body, JSON.stringify(name)).toMatchObject({ message: '"name" must not contain control characters' });
    }
  });

  it('leaves every reservation and count as the creates say', async () => {
    expect((await integrity()).problems).toEqual([]);
  });
});
