/** Category creation under concurrency against DynamoDB Local: ids unique and gapless, names unique. */
import { describe, expect, it } from 'vitest';
import { handler as create } from '../../functions/create-category.js';
import { handler as list } from '../../functions/list-categories.js';
import { createCategory, listCategories } from '../../lib/routes.js';
import { successBody } from '../support/answer.js';
import { invoke, jsonPost, proxyEvent } from '../support/events.js';

const listAll = async () => successBody(listCategories, await invoke(list, proxyEvent()));

describe('createCategory under concurrency', () => {
  it('50 parallel creates with distinct names get 50 distinct ids, all listed', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `Breed ${i}`);
    const answers = await Promise.all(names.map((name) => invoke(create, jsonPost(JSON.stringify({ name })))));
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 201));
    const ids = answers.map((a) => successBody(createCategory, a).id);
    expect(new Set(ids).size).toBe(50);
    const listed = await listAll();
    expect(
      listed
        .filter((c) => names.includes(c.name))
        .map((c) => c.id)
        .sort((a, b) => a - b),
    ).toEqual([...ids].sort((a, b) => a - b));
    expect(listed.map((c) => c.id)).toEqual([...listed.map((c) => c.id)].sort((a, b) => a - b));
  });

  it('20 parallel creates of one name: exactly one 201, the rest 409', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => invoke(create, jsonPost('{"name":"Axolotl"}'))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    const listed = await listAll();
    expect(listed.filter((c) => c.name.toLowerCase() === 'axolotl')).toHaveLength(1);
  });

  it('"Dog" and "dog" at once: one 201 and one 409', async () => {
    const answers = await Promise.all([invoke(create, jsonPost('{"name":"Dog"}')), invoke(create, jsonPost('{"name":"dog"}'))]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
  });

  it('ids stay gapless: the listed ids are exactly 1..n', async () => {
    const ids = (await listAll()).map((c) => c.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });
});
