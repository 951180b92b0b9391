/**
 * The keys of a name's two reservations: the name compared ignoring case only, as the previous release reserves it,
 * and the name under the uniqueness rule, NFKC_Casefold.
 */
import { createHash } from 'node:crypto';
import { nfkcCasefold } from '../unicode/nfkc-casefold.js';
import { FOLDED_NAME_PREFIX, HASHED_NAME_PREFIX, type ItemKey, LEGACY_NAME_PREFIX } from './keys.js';

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
