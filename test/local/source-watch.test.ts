/** What makes `npm start` reload: every save of a source file, in place or by rename as editors and git write. */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchSources } from '../../infra/local/source-watch.js';
import { sleep } from '../support/sleep.js';

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
    // At least one reload a save (on a loaded machine a rename's two events may come far enough apart to make two),
    // and none still to come when the next save is made, so that the next one's reload is its own.
    const saved = async (save: () => void) => {
      const before = reloads.length;
      save();
      await vi.waitFor(() => expect(reloads.length).toBeGreaterThan(before), { timeout: 10_000 });
      for (let seen = -1; seen !== reloads.length; ) {
        seen = reloads.length;
        await sleep(1_000);
      }
    };
    await saved(() => appendFileSync(file, '// in place\n'));
    await saved(() => {
      writeFileSync(`${file}.swp`, 'export {}; // by rename\n');
      renameSync(`${file}.swp`, file);
    });
    // Node's recursive fs.watch on Linux missed this one: the file it watched had been replaced.
    await saved(() => appendFileSync(file, '// in place again\n'));
    expect(reloads.flat().every((path) => path === join('lib', 'http', 'finish.ts'))).toBe(true);
  });

  it('ignores the client package and files that are not sources', async () => {
    const reloads = await watched();
    writeFileSync(join(root, 'lib/client/index.ts'), 'export {};\n');
    writeFileSync(join(root, 'lib/http/notes.md'), 'notes\n');
    writeFileSync(join(root, 'functions/new-operation.ts'), 'export {};\n');
    await vi.waitFor(() => expect(reloads).toEqual([[join('functions', 'new-operation.ts')]]), { timeout: 10_000 });
  });
});
