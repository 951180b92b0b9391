/**
 * `npm start` as a person runs it: the npm process itself (or a parent that starts npm), on free ports with its own
 * DATA_DIR, its output kept, and the processes it started listed so that a test can check none outlives it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { runPort } from './ports.js';

export interface NpmStart {
  /** The npm process, or the parent that started it (`viaParent`). */
  child: ChildProcess;
  output: () => string;
  production: string;
  staging: string;
  ports: number[];
  env: Record<string, string>;
  exited: Promise<number | null>;
  /** Every process below `child` once it is ready. */
  descendants: number[];
}

/** The pids below `root`, from `ps`. */
export function descendantsOf(root: number): number[] {
  const rows = spawnSync('ps', ['-e', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = rows.filter(([, ppid]) => frontier.includes(ppid ?? -1)).map(([pid]) => pid ?? -1);
    found.push(...next);
    frontier = next;
  }
  return found;
}

export { alive } from '../../lib/cli/running-start.js';

export const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * Runs `npm start` in `cwd` and waits for its ready line. `viaParent`: a node process starts npm and stays its
 * parent, so that a test can kill the parent.
 */
export async function npmStart(env: Record<string, string>, options: { cwd?: string; viaParent?: boolean } = {}): Promise<NpmStart> {
  const ports = { PORT: await runPort(), STAGING_PORT: await runPort(), DYNAMODB_PORT: await runPort() };
  const fullEnv = { ...Object.fromEntries(Object.entries(ports).map(([k, p]) => [k, String(p)])), ...env };
  const args = options.viaParent
    ? [process.execPath, ['-e', "require('node:child_process').spawn('npm', ['start'], { stdio: 'inherit' }); setInterval(() => {}, 1e6);"]]
    : ['npm', ['start']];
  const child = spawn(args[0] as string, args[1] as string[], {
    cwd: options.cwd,
    env: { ...process.env, DYNAMODB_ENDPOINT: '', STAGE: '', LOG_LEVEL: '', REQUEST_LOG: '', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start not ready after 120 s:\n${output}`)), 120_000);
    child.stdout?.on('data', () => {
      if (output.includes('Pet Store API ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    production: `http://127.0.0.1:${ports.PORT}/v1`,
    staging: `http://127.0.0.1:${ports.STAGING_PORT}/v1`,
    ports: Object.values(ports),
    env: fullEnv,
    exited,
    descendants: descendantsOf(child.pid ?? -1),
  };
}
