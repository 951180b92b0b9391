/** `categories list`: every category with its id, creator and creation time, or only those one customer created. */
import { CustomerIdSchema, parseWith } from '../args.js';
import { categoryLines, categoryRow } from '../category-rows.js';
import { defineCommand } from '../command.js';
import { existingCustomer } from '../stores.js';

export const categoriesList = defineCommand({
  name: 'categories list',
  writes: false,
  synopsis: '[--created-by <customerId>]',
  flags: { 'created-by': 'string' },
  prepare({ flags, stage }) {
    const createdBy = flags['created-by'] === undefined ? undefined : parseWith(CustomerIdSchema, flags['created-by'], '--created-by');
    return async ({ auth, categories }) => {
      if (createdBy !== undefined) await existingCustomer(auth, createdBy, stage);
      const found = (await categories.list({ createdBy })).sort((a, b) => a.id - b.id);
      const none = createdBy ? `no categories created by ${createdBy}` : 'no categories';
      return { json: found.map(categoryRow), text: found.length ? categoryLines(found) : none };
    };
  },
});
