/**
 * The keys of the categories table's items: one table, so that one transaction covers every item a change touches.
 * A name has two reservations: ignoring case only (the previous release's), and under NFKC_Casefold.
 */
import { createHash } from 'node:crypto';
import { nfkcCasefold } from '../unicode/nfkc-casefold.js';

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

/**
 * A partition key may be 2,048 bytes. A name of 100 code points is at most 400 bytes of UTF-8, but NFKC_Casefold
 * may expand a code point to 18 (U+FDFA): a folded name longer than this is reserved under its SHA-256 instead.
 */
const FOLDED_KEY_MAX_BYTES = 1_024;

export function legacyNameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase().normalize('NFC');
}

/** The name as uniqueness compares it: trimmed, then NFKC_Casefold (`Straße` and `STRASSE` are one name). */
export function foldedName(name: string): string {
  return nfkcCasefold(name.normalize('NFC').trim());
}

export function legacyReservationKey(name: string): ItemKey {
  return { pk: `${LEGACY_NAME_PREFIX}${legacyNameKey(name)}`, sk: 0 };
}

export function foldedReservationKey(name: string): ItemKey {
  const folded = foldedName(name);
  return Buffer.byteLength(folded) <= FOLDED_KEY_MAX_BYTES
    ? { pk: `${FOLDED_NAME_PREFIX}${folded}`, sk: 0 }
    : { pk: `${HASHED_NAME_PREFIX}${createHash('sha256').update(folded).digest('hex')}`, sk: 0 };
}
