/** NFKC_Casefold (`Straße` → `strasse`, `ﬁsh` → `fish`), from the table `npm run unicode` generates (nfkc-casefold-table.ts). */
import { NFKC_CASEFOLD_TABLE_BROTLI } from './nfkc-casefold-table.js';

/** The table's text, unpacked (well under 1 ms) with the runtime's zlib, which the SDK's CRC32 has loaded already. */
export function tableText(): string {
  const { brotliDecompressSync } = process.getBuiltinModule('node:zlib');
  return brotliDecompressSync(Buffer.from(NFKC_CASEFOLD_TABLE_BROTLI, 'base64')).toString();
}

function numberAt(values: ArrayLike<number>, i: number): number {
  const value = values[i];
  if (value === undefined) throw new Error(`NFKC_Casefold table: no number at ${i}`);
  return value;
}

export function codePointOf(ch: string): number {
  return ch.codePointAt(0) ?? 0;
}

/** Where each record starts (code point and index), for a binary search. */
interface Table {
  numbers: readonly number[];
  starts: Int32Array;
  at: Int32Array;
}

/** Format: `encodeTable` in derive-nfkc-casefold.ts. About 1 ms, most of it JSON.parse. */
export function readTable(text: string): Table {
  const numbers: number[] = JSON.parse(text);
  const starts: number[] = [];
  const at: number[] = [];
  let start = 0;
  for (let i = 0; i < numbers.length; ) {
    start += numberAt(numbers, i);
    starts.push(start);
    at.push(i);
    const length = numberAt(numbers, i + 3);
    i += 4 + (length < 0 ? 1 : length);
  }
  return { numbers, starts: Int32Array.from(starts), at: Int32Array.from(at) };
}

function lookup({ numbers, starts, at }: Table, cp: number): string | undefined {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (numberAt(starts, middle) <= cp) low = middle;
    else high = middle - 1;
  }
  const start = numberAt(starts, low);
  const i = numberAt(at, low);
  const [count, step, length] = [numberAt(numbers, i + 1), numberAt(numbers, i + 2), numberAt(numbers, i + 3)];
  const offset = cp - start;
  if (offset < 0 || offset % step !== 0 || offset / step >= count) return undefined;
  if (length < 0) return String.fromCodePoint(cp + numberAt(numbers, i + 4));
  return String.fromCodePoint(...numbers.slice(i + 4, i + 4 + length));
}

/** @internal Every mapping the table holds, code point by code point (for tests and tools). */
export function decodeTable(text: string): Map<number, string> {
  const table = readTable(text);
  const mapping = new Map<number, string>();
  for (const [index, start] of table.starts.entries()) {
    const i = numberAt(table.at, index);
    const [count, step] = [numberAt(table.numbers, i + 1), numberAt(table.numbers, i + 2)];
    for (let n = 0; n < count; n++) {
      const cp = start + n * step;
      const mapped = lookup(table, cp);
      if (mapped === undefined) throw new Error(`NFKC_Casefold table: its record for U+${cp.toString(16)} maps nothing`);
      mapping.set(cp, mapped);
    }
  }
  return mapping;
}

/** Read on first use of a text beyond ASCII: in ASCII, NFKC_Casefold only lowers A to Z (tests check the table). */
let table: Table | undefined;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is every code point below 0x80
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * Each code point mapped by the table, then NFC (`ＤＯＧ` → `dog`). JavaScript has no case folding and no npm package
 * implements it; a table rather than NFKC at run time keeps a name's key the same whatever the runtime's ICU.
 */
export function nfkcCasefold(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  table ??= readTable(tableText());
  let out = '';
  for (const ch of text) out += lookup(table, codePointOf(ch)) ?? ch;
  return out.normalize('NFC');
}
