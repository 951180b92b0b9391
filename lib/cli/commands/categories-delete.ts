/** `categories delete`: one by id, or all one customer created (`--created-by`; without `--yes` it lists them, exit 2). Audited. */
import type { StoredCategory } from '../../categories/moderation.js';
import { CustomerIdSchema, parseReason, parseWith, UsageError } from '../args.js';
import { categoryRow, deleteCategory, parseCategoryId } from '../category-rows.js';
import { type Action, defineCommand } from '../command.js';

const listed = (found: readonly StoredCategory[]) => found.map((c) => `${c.id} ${JSON.stringify(c.name)}`).join(', ');

export const categoriesDelete = defineCommand({
  name: 'categories delete',
  writes: true,
  synopsis: '<id> [--reason TEXT] | categories delete --created-by <customerId> [--yes] [--reason TEXT]',
  positionals: [0, 1],
  flags: { 'created-by': 'string', yes: 'boolean', reason: 'string' },
  prepare({ args, flags, stage }): Action {
    const reason = parseReason(flags.reason);
    const byCreator = flags['created-by'];
    if (args[0] !== undefined && byCreator !== undefined) throw new UsageError('give a category id or --created-by, not both');
    if (args[0] === undefined && byCreator === undefined)
      throw new UsageError('give the id of the category to delete, or --created-by <customerId>');

    if (byCreator === undefined) {
      const id = parseCategoryId(args[0]);
      return async (stores) => {
        const seen = await stores.categories.get(id);
        if (!seen) throw new UsageError(`no category ${id} in ${stage}`);
        await deleteCategory(stores, seen, reason);
        return {
          json: { ...categoryRow(seen), deleted: true },
          text: `category ${id} ${JSON.stringify(seen.name)} is deleted (${stage}): its name is free again, its id is not reused`,
        };
      };
    }

    const createdBy = parseWith(CustomerIdSchema, byCreator, '--created-by');
    const confirmed = flags.yes === true;
    return async (stores) => {
      const found = (await stores.categories.list({ createdBy })).sort((a, b) => a.id - b.id);
      if (!confirmed) {
        throw new UsageError(
          found.length
            ? `would delete ${found.length} ${found.length === 1 ? 'category' : 'categories'} created by ${createdBy} in ${stage}: ${listed(found)}; run again with --yes to delete them`
            : `customer ${createdBy} created no categories in ${stage}: nothing to delete`,
        );
      }
      const deleted: StoredCategory[] = [];
      for (const category of found) {
        // Deleted or renamed by someone else since the list was read: theirs is the last word on it.
        const seen = await stores.categories.get(category.id);
        if (!seen) continue;
        await deleteCategory(stores, seen, reason);
        deleted.push(seen);
      }
      return {
        json: { createdBy, deleted: deleted.length, categories: deleted.map(categoryRow) },
        text: deleted.length
          ? `deleted ${deleted.length} ${deleted.length === 1 ? 'category' : 'categories'} created by ${createdBy} (${stage}): ${listed(deleted)}`
          : `customer ${createdBy} created no categories in ${stage}: nothing deleted`,
      };
    };
  },
});
