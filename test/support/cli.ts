/**
 * Runs the admin CLI against this test file's tables: in-process through `main` (most tests), or as the process an
 * operator starts with `npm run petstore -- …` (a few end-to-end tests).
 */
import { spawn } from 'node:child_process';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { main } from '../../lib/cli/main.js';
import { testDb } from './customers.js';
import { restoreEnvironment } from './environment.js';
import { TEST_PREFIX } from './setup.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// In-process, the CLI reads its local settings from this process's environment (adminCliConfig in lib/config.ts).
process.env.PETSTORE_TABLE_PREFIX = TEST_PREFIX;

/** `main` in this process; stdout and stderr hold what the process would have printed. */
export async function petstore(...args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    out: (text) => {
      stdout += `${text}\n`;
    },
    err: (text) => {
      stderr += `${text}\n`;
    },
  });
  return { code, stdout, stderr };
}

/**
 * `main` in this process with `env` laid over its environment for the call, as `petstoreProcess(args, env)` would
 * see it (an empty value unsets a variable, as it does for the SDK and the configuration).
 */
export async function petstoreWith(env: Record<string, string>, args: string[]): Promise<CliResult> {
  const saved = { ...process.env };
  Object.assign(process.env, { STAGE: '', ...env });
  try {
    return await petstore(...args);
  } finally {
    restoreEnvironment(saved);
  }
}

/**
 * `npm run petstore -- …` as a child process, with an operator's environment: STAGE empty. `via: 'node'` runs the
 * script npm would run (lib/cli/bin.ts under tsx) without npm's own start, where the npm path is not what is tested.
 */
export function petstoreProcess(args: string[], env: Record<string, string> = {}, via: 'npm' | 'node' = 'npm'): Promise<CliResult> {
  return new Promise((resolve) => {
    const [command, prefix] =
      via === 'npm' ? ['npm', ['run', '--silent', 'petstore', '--']] : [process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts']];
    const child = spawn(command, [...prefix, ...args], {
      env: {
        ...process.env,
        PETSTORE_TABLE_PREFIX: TEST_PREFIX,
        STAGE: '',
        ...env,
      },
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

/** Every item of this test file's tables, as one string: equal before and after a command that wrote nothing. */
export async function tableContents(): Promise<string> {
  const names = [
    process.env.CUSTOMERS_TABLE,
    process.env.KEYS_TABLE,
    process.env.COUNTERS_TABLE,
    process.env.CATEGORIES_TABLE,
    process.env.AUDIT_TABLE,
  ];
  const scans = await Promise.all(names.map((TableName) => testDb.send(new ScanCommand({ TableName, ConsistentRead: true }))));
  return JSON.stringify(scans.map((s) => (s.Items ?? []).map((i) => JSON.stringify(i)).sort()));
}
