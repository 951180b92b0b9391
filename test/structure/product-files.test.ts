/**
 * Every module of the product (lib/, functions/, infra/) stays short enough to read in one sitting: at most 250
 * lines. A module that grows past it holds more than one job, and is split where its jobs part.
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
});
