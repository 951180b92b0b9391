/** `categories reserve-names`, upgrading to NFKC_Casefold names: reserves them, reports those shared; changes no category (not audited). */
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
