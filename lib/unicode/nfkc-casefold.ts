/**
 * NFKC_Casefold, the Unicode mapping for comparing text loosely: compatibility variants, case and ignorable
 * characters removed (`Straße` → `strasse`, `ﬁsh` → `fish`, `ＤＯＧ` → `dog`). JavaScript has NFKC but no case
 * folding (`toLowerCase` leaves `ß` as it is), and no package on npm implements the property, so the mapping of
 * every code point is a table generated from Unicode's data at build time (nfkc-casefold-table.ts, written by
 * `npm run unicode`, derived in derive-nfkc-casefold.ts). A table rather than NFKC and folding at run time: the
 * result depends on the table's Unicode version alone, not on the ICU of whichever Node.js runs it, so a name maps
 * to the same key after a runtime update.
 */
import { NFKC_CASEFOLD_TABLE } from './nfkc-casefold-table.js';

/** Reads the table's text (format: `encodeTable` in derive-nfkc-casefold.ts). */
export function decodeTable(text: string): Map<number, string> {
  const mapping = new Map<number, string>();
  let start = 0;
  for (const record of text.split(';')) {
    const at = record.search(/[+=-]/);
    const [delta = 0, count = 1, step = 1] = record
      .slice(0, at)
      .split('.')
      .map((n) => Number.parseInt(n, 36));
    start += delta;
    const kind = record[at];
    const value = record.slice(at + 1);
    const fixed = kind === '=' ? String.fromCodePoint(...(value ? value.split(',').map((n) => Number.parseInt(n, 36)) : [])) : '';
    const shift = kind === '+' ? Number.parseInt(value, 36) : kind === '-' ? -Number.parseInt(value, 36) : 0;
    for (let i = 0; i < count; i++) {
      const cp = start + i * step;
      mapping.set(cp, kind === '=' ? fixed : String.fromCodePoint(cp + shift));
    }
  }
  return mapping;
}

/**
 * Decoded on first use of a text beyond ASCII (a few milliseconds), so an instance that only ever sees ASCII names
 * never decodes it: in ASCII, NFKC_Casefold changes A to Z alone, to a to z (the tests check this against the table).
 */
let table: Map<number, string> | undefined;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is every code point below 0x80
const ASCII = /^[\u0000-\u007f]*$/;

/** toNFKC_Casefold: each code point mapped by the table, then the whole normalised to NFC (as Unicode defines it). */
export function nfkcCasefold(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  table ??= decodeTable(NFKC_CASEFOLD_TABLE);
  let out = '';
  for (const ch of text) out += table.get(ch.codePointAt(0) as number) ?? ch;
  return out.normalize('NFC');
}
