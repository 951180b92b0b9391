/**
 * Ports for the processes a test starts: free (freePort), and given to one test file of the run only. freePort never
 * repeats a pick within a process; files in other workers pick too, so each pick is claimed in the run's directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local.js';

export async function runPort(): Promise<number> {
  // Outside vitest (npm run test:load) there is no run to share ports with.
  if (!process.env.VITEST) return freePort();
  const claims = join(inject('runDir'), 'ports');
  mkdirSync(claims, { recursive: true });
  for (;;) {
    const port = await freePort();
    try {
      writeFileSync(join(claims, String(port)), '', { flag: 'wx' });
      return port;
    } catch (error) {
      // Taken by another file: pick again.
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
    }
  }
}
