/** `categories rename`: another name, by the rules and uniqueness of POST /categories. Audited under the creator. */
import { CategoryExists } from '../../categories/store.js';
import { parseReason, UsageError } from '../args.js';
import { auditCustomerOf, parseCategoryId, parseCategoryName } from '../category-rows.js';
import { defineCommand } from '../command.js';

export const categoriesRename = defineCommand({
  name: 'categories rename',
  writes: true,
  synopsis: '<id> <name> [--reason TEXT]',
  positionals: [2, 2],
  flags: { reason: 'string' },
  prepare({ args, flags, stage }) {
    const id = parseCategoryId(args[0]);
    const name = parseCategoryName(args[1]);
    const reason = parseReason(flags.reason);
    return async ({ categories, audit }) => {
      const seen = await categories.get(id);
      if (!seen) throw new UsageError(`no category ${id} in ${stage}`);
      if (seen.name === name) {
        return {
          json: { id, name, previousName: seen.name, changed: false },
          text: `category ${id} is already named ${JSON.stringify(name)}: nothing changed`,
        };
      }
      try {
        await categories.rename(
          seen,
          name,
          audit.change({
            action: 'category-rename',
            customerId: auditCustomerOf(seen),
            categoryId: id,
            changes: { name: { from: seen.name, to: name } },
            ...(reason ? { reason } : {}),
          }),
        );
      } catch (error) {
        if (error instanceof CategoryExists) throw new UsageError(`cannot rename category ${id}: ${error.message}`);
        throw error;
      }
      return {
        json: { id, name, previousName: seen.name, changed: true },
        text: `category ${id} is renamed from ${JSON.stringify(seen.name)} to ${JSON.stringify(name)} (${stage}); the old name is free again`,
      };
    };
  },
});
