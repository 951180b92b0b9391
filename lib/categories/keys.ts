/** The keys of the categories table's items: one table, so that one transaction covers every item a change touches. */
/**
 * The items:
 *   { pk: "COUNTER", sk: 0, lastId, deletedCount? } the last id handed out, and how many categories were deleted
 *   { pk: "CATEGORY", sk: <id>, id, name, description?, createdBy?, createdAt }
 *                                                    a category; a Query on pk lists them in id order
 *   { pk: "NAME#<lower-case name>", sk: 0, categoryId }
 *                                                    the reservation of the name compared ignoring case only
 *   { pk: "FOLDED#<NFKC_Casefold name>", sk: 0, categoryId }
 *                                                    the reservation of the name under the uniqueness rule
 *   { pk: "CREATOR#<customerId>", sk: 0, held }      how many categories a customer created and still holds
 */
// Both reservations are written so that the previous release, which knows NAME# alone, sees every name taken during a
// rollout or after a rollback. Categories from before `createdBy` count against no customer's allowance.
export const COUNTER_KEY = { pk: 'COUNTER', sk: 0 } as const;
export const CATEGORY_PK = 'CATEGORY';
export const LEGACY_NAME_PREFIX = 'NAME#';
export const FOLDED_NAME_PREFIX = 'FOLDED#';
export const HASHED_NAME_PREFIX = 'FOLDED-SHA256#';
export const CREATOR_PREFIX = 'CREATOR#';

export type ItemKey = { pk: string; sk: number };

export const categoryKey = (id: number): ItemKey => ({ pk: CATEGORY_PK, sk: id });
export const creatorKey = (customerId: string): ItemKey => ({ pk: `${CREATOR_PREFIX}${customerId}`, sk: 0 });
