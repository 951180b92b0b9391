/** Runs `npm start`'s entry (infra/local/start.ts) as a child process on free ports, as a newcomer would. */
import { type ChildProcess, spawn } from 'node:child_process';
import { runPort } from './ports.js';

export interface RunningStart {
  child: ChildProcess;
  output: () => string;
  production: string;
  staging: string;
  env: Record<string, string>;
  stop(): Promise<number | null>;
}

export async function startLocal(env: Record<string, string>): Promise<RunningStart> {
  const ports = { PORT: String(await runPort()), STAGING_PORT: String(await runPort()), DYNAMODB_PORT: String(await runPort()) };
  const fullEnv = { ...ports, ...env };
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    env: { ...process.env, DYNAMODB_ENDPOINT: '', STAGE: '', ...fullEnv },
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
    const timer = setTimeout(() => reject(new Error(`npm start not ready after 60 s:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
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
    env: fullEnv,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}
