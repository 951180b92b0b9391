/**
 * `categories reserve-names`: the upgrade step for categories stored before names were compared under NFKC_Casefold.
 * Reserves every stored category's name under that rule and reports the names that collide under it (two stored
 * categories that are one name now), merging nothing: an operator resolves each with `categories rename` or
 * `categories delete`, then runs this again, until it reports none. Changes no category, so it is not audited.
 */
import type { NameCollision } from '../../categories/moderation.js';
import { categoryRow } from '../category-rows.js';
import { defineCommand } from '../command.js';

function collisionLine(collision: NameCollision): string {
  const members = collision.categories
    .map((c) => `${c.id} ${JSON.stringify(c.name)} (by ${c.createdBy ?? 'unknown'}${c.id === collision.holder ? ', holds the name' : ''})`)
    .join(', ');
  return `  ${JSON.stringify(collision.folded)}: ${members}`;
}

export const categoriesReserveNames = defineCommand({
  name: 'categories reserve-names',
  writes: true,
  synopsis: '',
  positionals: [0, 0],
  flags: {},
  prepare({ stage }) {
    return async ({ categories }) => {
      const report = await categories.reserveNames();
      const { checked, reserved, collisions } = report;
      const summary = `checked ${checked} ${checked === 1 ? 'category' : 'categories'} in ${stage}: reserved ${reserved.length} ${reserved.length === 1 ? 'name' : 'names'} now, the others were reserved already`;
      const text = collisions.length
        ? [
            summary,
            `${collisions.length} ${collisions.length === 1 ? 'name is' : 'names are'} held by more than one category (rename or delete all but one of each, then run this again):`,
            ...collisions.map(collisionLine),
          ].join('\n')
        : `${summary}\nno collisions: every name is held by one category`;
      return {
        json: {
          checked,
          reserved: reserved.map(categoryRow),
          collisions: collisions.map((c) => ({ folded: c.folded, holder: c.holder, categories: c.categories.map(categoryRow) })),
        },
        text,
      };
    };
  },
});
