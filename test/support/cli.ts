/** Runs the admin CLI as an operator would (`npm run petstore -- …`), against this test file's tables. */
import { spawn } from 'node:child_process';
import { TEST_PREFIX } from './setup.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function petstore(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/main.ts', ...args], {
      env: { ...process.env, PETSTORE_TABLE_PREFIX: TEST_PREFIX, STAGE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
