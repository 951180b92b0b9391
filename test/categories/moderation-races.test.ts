/**
 * Operators' changes racing customers' creates of the same name, with real concurrency against DynamoDB Local, many
 * rounds: a delete and creates of one name, a rename and a create of one name. Whatever the order DynamoDB settles
 * on, no name is ever held by two categories, a create that answered 201 is the one category left with the name,
 * and every reservation and count matches the categories (nothing half-written).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { foldedName } from '../../lib/categories/keys.js';
import { categoryModeration } from '../../lib/categories/moderation.js';
import { CategoryExists, categoryStore } from '../../lib/categories/store.js';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import { categoryIntegrity } from '../support/category-integrity.js';
import { testDb } from '../support/customers.js';
import { testTable } from '../support/environment.js';
import { sleep } from '../support/sleep.js';

const table = testTable('CATEGORIES_TABLE');
const client = () => createDocumentClient(createDynamoClient(process.env.DYNAMODB_ENDPOINT));
/** Two function instances and the operator's CLI, each with a client of its own. */
const instances = [categoryStore(client(), table), categoryStore(client(), table)];
const operator = categoryModeration(client(), table);
const run = randomUUID().slice(0, 6);
/** A few milliseconds' random start, so the rounds try different interleavings. */
const jitter = () => sleep(Math.random() * 8);
/**
 * How long a round's creates wait before they start: 0 to 135 ms over ten rounds, longer than a delete takes (three
 * round trips), so that some rounds' creates land before the delete, some during it and some after.
 */
const spread = (round: number) => sleep((round % 10) * 15);

type Outcome = { created: number } | 'exists';

async function createRacing(index: number, name: string, createdBy: string, wait: () => Promise<unknown> = jitter): Promise<Outcome> {
  await wait();
  try {
    return { created: (await (instances[index] ?? instances[0])?.create({ name }, createdBy))?.id ?? Number.NaN };
  } catch (error) {
    if (error instanceof CategoryExists) return 'exists';
    throw error;
  }
}

async function holdersOf(name: string) {
  const { categories } = await categoryIntegrity(testDb, table);
  return categories.filter((c) => foldedName(c.name) === foldedName(name));
}

describe('a delete racing creates of the same name', () => {
  it('40 rounds: never two categories with the name; it is held by the create that answered 201, or by none', async () => {
    const outcomes: Record<string, number> = {};
    for (let round = 0; round < 40; round++) {
      const name = `Race ${run} ${round}`;
      const victim = await instances[0]?.create({ name }, `owner-${run}`);
      if (!victim) throw new Error('not created');
      const [deleted, ...creates] = await Promise.all([
        jitter().then(async () => {
          const seen = await operator.get(victim.id);
          if (!seen) throw new Error('the category to delete is gone');
          await operator.remove(seen);
          return 'deleted';
        }),
        createRacing(0, name.toUpperCase(), `racer-${run}`, () => spread(round)),
        createRacing(1, name.toLowerCase(), `racer-${run}`, () => spread(round).then(jitter)),
      ]);
      expect(deleted).toBe('deleted');
      const created = creates.flatMap((c) => (c === 'exists' ? [] : [c.created]));
      expect(created.length).toBeLessThanOrEqual(1);
      expect((await holdersOf(name)).map((c) => c.id)).toEqual(created);
      const key = `${creates.filter((c) => c === 'exists').length} refused, ${created.length} created`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
    // Both orders happened: some creates came before the delete (409), some after (201).
    expect(Object.keys(outcomes).length).toBeGreaterThan(1);
  }, 120_000);
});

describe('a rename racing a create of the same name', () => {
  it('20 rounds: exactly one of them gets the name, and the name has exactly one holder', async () => {
    for (let round = 0; round < 20; round++) {
      const target = `Swap ${run} ${round}`;
      const renamed = await instances[0]?.create({ name: `Before ${run} ${round}` }, `owner-${run}`);
      if (!renamed) throw new Error('not created');
      const [renaming, creating] = await Promise.all([
        jitter().then(async () => {
          const seen = await operator.get(renamed.id);
          if (!seen) throw new Error('gone');
          return operator.rename(seen, target).then(
            () => 'renamed',
            (error: unknown) => (error instanceof CategoryExists ? 'exists' : Promise.reject(error)),
          );
        }),
        createRacing(1, target.toUpperCase(), `racer-${run}`),
      ]);
      // One wins and the other is told the name exists.
      expect([renaming === 'renamed', creating !== 'exists'].filter(Boolean)).toHaveLength(1);
      const holders = await holdersOf(target);
      expect(holders).toHaveLength(1);
      expect(holders[0]?.id).toBe(renaming === 'renamed' || creating === 'exists' ? renamed.id : creating.created);
    }
    expect((await categoryIntegrity(testDb, table)).problems).toEqual([]);
  }, 120_000);
});
