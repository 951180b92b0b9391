/**
 * Every module of the product (lib/, functions/, infra/) stays short enough to read in one sitting: at most 250
 * lines, split where its jobs part. The header of a module of lib/ and functions/ says what it owns in 6 lines or
 * fewer; reasoning goes beside the code it explains, to docs/contributing.md or to commit messages.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_LINES = 250;

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const relative = path.posix.join(dir, name);
    if (statSync(path.join(ROOT, relative)).isDirectory()) return files(relative);
    return /\.m?ts$/.test(relative) ? [relative] : [];
  });
}

const MAX_HEADER_LINES = 6;

/** The text lines of a module's leading doc comment (after a shebang), the delimiters left out; `/** … *\/` alone is 1. */
function headerLines(file: string): number {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^#![^\n]*\n/, '');
  if (/^\/\*\*[^\n]*\*\/\n/.test(text)) return 1;
  const header = /^\/\*\*\n([\s\S]*?)\n \*\//.exec(text);
  return header?.[1] ? header[1].split('\n').length : 0;
}

const lines = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

describe('product modules', () => {
  const modules = ['lib', 'functions', 'infra'].flatMap(files);

  it('are found, the separate .mts modules included', () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(modules).toContain('lib/idempotency/utility.mts');
  });

  it(`are at most ${MAX_LINES} lines each`, () => {
    const long = modules.filter((file) => lines(file) > MAX_LINES).map((file) => `${file}: ${lines(file)} lines`);
    expect(long).toEqual([]);
  });

  it(`have a header of at most ${MAX_HEADER_LINES} lines`, () => {
    const headed = modules;
    expect(headed.filter((file) => headerLines(file) > 0).length).toBeGreaterThan(100);
    const long = headed.filter((file) => headerLines(file) > MAX_HEADER_LINES).map((file) => `${file}: ${headerLines(file)} lines`);
    expect(long).toEqual([]);
  });

  it('have names of their own: no file name used in two folders, but the pairs of version 1.1', () => {
    const folders = new Map<string, string[]>();
    for (const file of modules.filter((file) => !file.startsWith('lib/client/dist/'))) {
      const name = path.posix.basename(file);
      folders.set(name, [...(folders.get(name) ?? []), path.posix.dirname(file)]);
    }
    const twice = [...folders].filter(([, dirs]) => dirs.length > 1).map(([name]) => name);
    // Older than this rule, each in folders a reader does not confuse (a handler and its local model, a client
    // package and the DynamoDB clients, ...); any new pair fails.
    const older = ['authorizer.ts', 'client.ts', 'config.ts', 'errors.ts', 'gateway-responses.ts', 'keys.ts', 'schema.ts', 'tables.ts'];
    expect(twice.filter((name) => !older.includes(name))).toEqual([]);
  });
});
