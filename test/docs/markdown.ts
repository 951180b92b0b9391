/**
 * Just enough Markdown for the docs tests: the tables of a document (cells split on unescaped `|`, `\|` read as `|`),
 * its links, and its headings' anchors as GitHub makes them. Fenced code blocks are skipped, as GitHub renders them
 * as code.
 */
import { readFileSync } from 'node:fs';

/** The lines of a document outside fenced code blocks, with their line numbers. */
function proseLines(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = [];
  let fence: string | undefined;
  for (const [index, line] of text.split('\n').entries()) {
    const opening = /^\s*(```|~~~)/.exec(line)?.[1];
    if (opening && (fence === undefined || fence === opening)) {
      fence = fence === undefined ? opening : undefined;
      continue;
    }
    if (fence === undefined) lines.push({ line, number: index + 1 });
  }
  return lines;
}

function cells(row: string): string[] {
  const inner = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll('\\|', '|'));
}

/** A cell's text without the code span around it: `` `keys list` `` is `keys list`. */
export const plain = (cell: string): string => cell.replace(/^`(.*)`$/, '$1');

/**
 * The rows of the one table of `file` whose header cells are exactly `header` (as written, lower case); fails when
 * there is none or more than one, so a renamed column fails the test instead of making it check nothing.
 */
export function tableRows(file: string, header: readonly string[]): string[][] {
  const lines = proseLines(readFileSync(file, 'utf8')).map(({ line }) => line);
  const found: string[][][] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] ?? '';
    const separator = lines[i + 1] ?? '';
    if (!line.trim().startsWith('|') || !/^\s*\|[\s|:-]+\|\s*$/.test(separator)) continue;
    if (cells(line).join('\u0000') !== header.join('\u0000')) continue;
    const rows: string[][] = [];
    for (let j = i + 2; j < lines.length && (lines[j] ?? '').trim().startsWith('|'); j++) rows.push(cells(lines[j] ?? ''));
    found.push(rows);
  }
  if (found.length !== 1) throw new Error(`${file}: expected one table headed | ${header.join(' | ')} |, found ${found.length}`);
  return found[0] ?? [];
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images, `[text](target)`, outside code blocks and code spans. */
export function links(text: string): Link[] {
  return proseLines(text).flatMap(({ line, number }) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target = '']) => ({
      target,
      line: number,
    })),
  );
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const words = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(words) ?? 0;
    seen.set(words, count + 1);
    result.add(count === 0 ? words : `${words}-${count}`);
  }
  return result;
}
