/** How the CLI takes and shows categories, and deletes one as an operator does (`categories delete`, `verify`). */
import * as v from 'valibot';
import { NO_CUSTOMER } from '../audit/trail.js';
import type { StoredCategory } from '../categories/moderation.js';
import { CategoryNameSchema } from '../categories/schema.js';
import { quoted } from '../unicode/hidden.js';
import { parseWith, UsageError } from './args.js';
import type { Stores } from './stores.js';

const CategoryIdSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,15}$/, 'a category id is a whole number from 1, as GET /categories shows it'),
  v.transform(Number),
  v.safeInteger('a category id is a whole number from 1, as GET /categories shows it'),
);

export const parseCategoryId = (value: string | undefined): number => parseWith(CategoryIdSchema, value, 'category id');

/** A name by the rules and with the messages of POST /categories: trimmed and NFC-normalised, as it will be stored. */
export function parseCategoryName(value: string | undefined): string {
  const result = v.safeParse(CategoryNameSchema, value);
  if (!result.success) throw new UsageError(`${result.issues[0]?.message ?? 'invalid name'} (got ${quoted(value ?? '')})`);
  return result.output;
}

/** A change to `category` is recorded under its creator, so `audit --customer C` finds what was done to C's. */
export const auditCustomerOf = (category: StoredCategory) => category.createdBy ?? NO_CUSTOMER;

export function categoryRow(category: StoredCategory) {
  return {
    id: category.id,
    name: category.name,
    ...(category.description !== undefined ? { description: category.description } : {}),
    createdBy: category.createdBy,
    createdAt: category.createdAt,
  };
}

export function categoryLines(categories: readonly StoredCategory[]): string {
  const header = `${'ID'.padStart(6)}  ${'CREATED BY'.padEnd(24)}  ${'CREATED'.padEnd(24)}  NAME`;
  const lines = categories.map(
    (c) => `${String(c.id).padStart(6)}  ${(c.createdBy ?? '-').padEnd(24)}  ${(c.createdAt ?? '-').padEnd(24)}  ${JSON.stringify(c.name)}`,
  );
  return [header, ...lines].join('\n');
}

/** The guarded transaction with its audit record, under the creator. */
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
