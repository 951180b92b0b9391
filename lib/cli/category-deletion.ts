/**
 * Deleting one category as an operator does: the moderation store's guarded transaction with its audit record, under
 * the category's creator. Shared by `categories delete` and by `verify`, which deletes the categories its run made.
 */
import type { StoredCategory } from '../categories/moderation.js';
import { nowMs } from '../clock.js';
import { auditCustomerOf } from './category-rows.js';
import type { Stores } from './stores.js';

/** Deletes `category` as read, with its audit record. */
export async function deleteCategory(
  { categories, audit }: Pick<Stores, 'categories' | 'audit'>,
  category: StoredCategory,
  reason: string | undefined,
): Promise<void> {
  const now = new Date(nowMs());
  await categories.remove(category, {
    now,
    also: [
      audit.entry(
        {
          action: 'category-delete',
          customerId: auditCustomerOf(category),
          categoryId: category.id,
          changes: { name: { from: category.name, to: null } },
          ...(reason ? { reason } : {}),
        },
        now,
      ),
    ],
  });
}
