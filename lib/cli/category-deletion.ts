/**
 * Deleting one category as read, as an operator does: the guarded transaction with its audit record, under the
 * creator. Shared by `categories delete` and `verify`, which deletes the categories its run made.
 */
import type { StoredCategory } from '../categories/moderation.js';
import { auditCustomerOf } from './category-rows.js';
import type { Stores } from './stores.js';

export async function deleteCategory(
  { categories, audit }: Pick<Stores, 'categories' | 'audit'>,
  category: StoredCategory,
  reason: string | undefined,
): Promise<void> {
  await categories.remove(
    category,
    audit.change({
      action: 'category-delete',
      customerId: auditCustomerOf(category),
      categoryId: category.id,
      changes: { name: { from: category.name, to: null } },
      ...(reason ? { reason } : {}),
    }),
  );
}
