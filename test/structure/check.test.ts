/**
 * `npm run check` (Biome, tsc, knip) as one test file, so that `npm test` runs it beside the other files rather than
 * before them. Its output is shown only when it fails.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

it('passes Biome, tsc and knip', async () => {
  const outcome = await promisify(execFile)('npm', ['run', '--silent', 'check'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).then(
    () => ({ code: 0, output: '' }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout}${error.stderr}` }),
  );
  expect(outcome.code, outcome.output).toBe(0);
}, 240_000);
