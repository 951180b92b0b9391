/**
 * One environment's local gateway as `npm start` runs it (infra/local/serve.ts, a process of its own, since a
 * process holds one environment's configuration), on a free port, over this test file's tables of that stage.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { localTableNames } from '../../lib/dynamo/tables.js';
import type { Stage } from '../../lib/stacks.js';
import { TEST_PREFIX } from './setup.js';

export interface StageGateway {
  /** The base URL, ending in /v1. */
  url: string;
  stop(): Promise<void>;
}

export async function startStageGateway(stage: Stage): Promise<StageGateway> {
  const child = fork(fileURLToPath(new URL('../../infra/local/serve.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...localTableNames(stage, TEST_PREFIX), STAGE: stage, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { ready: boolean; url?: string; message?: string }) =>
      m.ready && m.url ? resolve(m.url) : reject(new Error(`the ${stage} gateway: ${m.message}`)),
    );
    exited.then(() => reject(new Error(`the ${stage} gateway exited before it listened`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
