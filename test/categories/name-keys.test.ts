/**
 * The two name reservations a category holds (lib/categories/keys.ts): the previous release's, compared ignoring
 * case, and the rule's, compared under NFKC_Casefold. Whatever the first refuses, the second refuses too, so writing
 * both never refuses a name the rule allows.
 */
import { describe, expect, it } from 'vitest';
import { foldedName, foldedReservationKey, legacyNameKey, legacyReservationKey } from '../../lib/categories/keys.js';

describe('name reservations', () => {
  it('names equal ignoring case are equal under NFKC_Casefold, for every code point and for words', () => {
    const apart: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (foldedName(legacyNameKey(ch)) !== foldedName(ch)) apart.push(cp.toString(16));
    }
    expect(apart).toEqual([]);
    for (const word of ['ΌΣΟΣ Σ', 'İstanbul', 'ǅemal', 'Straße']) expect(foldedName(legacyNameKey(word))).toBe(foldedName(word));
  });

  it('keep the legacy key as the previous release computes it: trimmed, NFC, lower case', () => {
    expect(legacyReservationKey('  Straße ').pk).toBe('NAME#straße');
    expect(foldedReservationKey('  Straße ').pk).toBe('FOLDED#strasse');
  });

  it('reserve a folded name that would not fit a partition key under its SHA-256', () => {
    // U+FDFA is one code point that NFKC expands to 18 (36 bytes of UTF-8): 100 of them fold to 3.6 KB.
    const long = foldedReservationKey('\ufdfa'.repeat(100)).pk;
    expect(long).toMatch(/^FOLDED-SHA256#[0-9a-f]{64}$/);
    expect(foldedReservationKey('\ufdfa'.repeat(99)).pk).not.toBe(long);
    expect(foldedReservationKey('\ufdfa'.repeat(28)).pk.startsWith('FOLDED#')).toBe(true);
  });
});
