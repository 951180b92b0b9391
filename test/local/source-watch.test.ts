/** What makes `npm start` reload: every save of a source file, in place or by rename as editors and git write. */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchSources } from '../../infra/local/source-watch.js';

let root: string;
let watcher: ReturnType<typeof watchSources> | undefined;

afterEach(async () => {
  await watcher?.close();
  rmSync(root, { recursive: true, force: true });
});

async function watched() {
  root = mkdtempSync(join(tmpdir(), 'petstore-watch-'));
  for (const dir of ['functions', 'lib/http', 'lib/client', 'infra/local']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'lib/http/finish.ts'), 'export {};\n');
  const reloads: string[][] = [];
  watcher = watchSources(root, (files) => reloads.push(files));
  await watcher.ready;
  return reloads;
}

describe('the source watch of npm start', () => {
  it('reloads on every save of a file, in place or by rename, before and after each other', async () => {
    const reloads = await watched();
    const file = join(root, 'lib/http/finish.ts');
    appendFileSync(file, '// in place\n');
    await vi.waitFor(() => expect(reloads).toHaveLength(1));
    writeFileSync(`${file}.swp`, 'export {}; // by rename\n');
    renameSync(`${file}.swp`, file);
    await vi.waitFor(() => expect(reloads).toHaveLength(2));
    // Node's recursive fs.watch on Linux missed this one: the file it watched had been replaced.
    appendFileSync(file, '// in place again\n');
    await vi.waitFor(() => expect(reloads).toHaveLength(3));
    expect(reloads.flat().every((path) => path === join('lib', 'http', 'finish.ts'))).toBe(true);
  });

  it('ignores the client package and files that are not sources', async () => {
    const reloads = await watched();
    writeFileSync(join(root, 'lib/client/index.ts'), 'export {};\n');
    writeFileSync(join(root, 'lib/http/notes.md'), 'notes\n');
    writeFileSync(join(root, 'functions/new-operation.ts'), 'export {};\n');
    await vi.waitFor(() => expect(reloads).toEqual([[join('functions', 'new-operation.ts')]]));
  });
});
