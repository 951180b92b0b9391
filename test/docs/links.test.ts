/**
 * The docs hold together and the repository stands alone: every relative link of README.md and the documents
 * points at a file that exists (and at a heading of it, when it names one), and no file refers to the shared folder
 * outside the repository that the contract once lived in.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, links } from './markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCUMENTS = [
  'README.md',
  'lib/client/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** What is generated, installed or git-ignored: not the repository's own text. */
const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', '.data', 'dist', 'artifacts', '.bench']);

function repositoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return repositoryFiles(path);
    return entry.isFile() ? [path] : [];
  });
}

describe('links of the documentation', () => {
  it('covers the README and every document', () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/operating.md', 'docs/deploying.md']));
  });

  it.each(DOCUMENTS)('%s: every relative link points at a file, and at a heading of it when it names one', (document) => {
    const file = join(ROOT, document);
    const text = readFileSync(file, 'utf8');
    const broken: string[] = [];
    for (const { target, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(linked)) {
        broken.push(`${document}:${line}: ${target} (no file ${relative(ROOT, linked)})`);
        continue;
      }
      if (anchor && linked.endsWith('.md') && !anchors(readFileSync(linked, 'utf8')).has(anchor)) {
        broken.push(`${document}:${line}: ${target} (no heading #${anchor} in ${relative(ROOT, linked)})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the repository', () => {
  it('refers to no file of the shared folder outside it', () => {
    const outside = ['..', 'shared'].join('/');
    const referring = repositoryFiles(ROOT).filter((file) => {
      if (statSync(file).size > 5_000_000) return false;
      const text = readFileSync(file, 'utf8');
      return !text.includes('\u0000') && text.includes(outside);
    });
    expect(referring.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
