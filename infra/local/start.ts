/**
 * `npm start`: DynamoDB Local (or DYNAMODB_ENDPOINT), both environments' tables, and one gateway process each (PORT,
 * STAGING_PORT), reloaded on a source change, all stopped by a signal or the end of whoever started it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeRunningStart, writeRunningStart } from '../../lib/cli/running-start.js';
import { localConfig } from '../../lib/config.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { localTableNames } from '../../lib/dynamo/tables.js';
import { DEMO_CUSTOMER, issueDemoKey } from './demo-key.js';
import { DOCS_PATH } from './docs.js';
import { checkJava, type DynamoLocal, JavaMissingError, makePrivateDir, startDynamoLocal } from './dynamodb-local.js';
import { watchAncestors } from './lifeline.js';
import { takenPortLine } from './ports.js';
import { watchSources } from './source-watch.js';
import { ensureTables } from './tables.js';

const settings = localConfig();
export const STAGES = [
  { stage: 'production', port: settings.PORT, variable: 'PORT' },
  { stage: 'staging', port: settings.STAGING_PORT, variable: 'STAGING_PORT' },
] as const;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const serveScript = fileURLToPath(new URL('./serve.ts', import.meta.url));
const dataDir = resolve(settings.DATA_DIR);
const gateways = new Map<string, ChildProcess>();
let dynamoLocal: DynamoLocal | undefined;
let stopping = false;

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((done) => child.once('exit', () => done()));
}

async function stopGateways(): Promise<void> {
  const running = [...gateways.values()];
  gateways.clear();
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(running.map(exited));
}

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    removeRunningStart(dataDir);
    await stopGateways();
    await dynamoLocal?.stop();
  }
  process.exit(code);
}

function startGatewayProcess(stage: string, port: number, endpoint: string): Promise<string> {
  const child = fork(serveScript, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      // The line per request names the request and its customer; the functions' own INFO lines ("key accepted" on
      // every call) would only repeat it. LOG_LEVEL=INFO shows them.
      LOG_LEVEL: process.env.LOG_LEVEL || 'WARN',
      ...localTableNames(stage),
      STAGE: stage,
      PORT: String(port),
      DYNAMODB_ENDPOINT: endpoint,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  gateways.set(stage, child);
  return new Promise((ready, fail) => {
    child.once('message', (message: { ready: boolean; url?: string; message?: string }) =>
      message.ready && message.url ? ready(message.url) : fail(new Error(`${stage}: ${message.message}`)),
    );
    child.once('exit', (code) => fail(new Error(`the ${stage} gateway exited with code ${code}`)));
  });
}

const startGateways = (endpoint: string) => Promise.all(STAGES.map(({ stage, port }) => startGatewayProcess(stage, port, endpoint)));

/** One reload at a time; changes during a reload make one more after it. */
function reloadOnChange(endpoint: string): void {
  let running: Promise<void> | undefined;
  let again: string[] = [];
  const reload = async (files: string[]) => {
    const started = performance.now();
    await stopGateways();
    try {
      await startGateways(endpoint);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`reloaded in ${seconds} s: ${files.join(', ')} changed`);
    } catch (error) {
      await stopGateways();
      console.error(`reload failed (${error instanceof Error ? error.message : error}); save a fix to try again`);
    }
  };
  watchSources(ROOT, (files) => {
    if (stopping) return;
    if (running) {
      again.push(...files);
      return;
    }
    running = reload(files).finally(async () => {
      running = undefined;
      if (again.length > 0 && !stopping) {
        const next = [...new Set(again)];
        again = [];
        running = reload(next).finally(() => {
          running = undefined;
        });
      }
    });
  });
}

async function main(): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
  watchAncestors((pid) => {
    console.error(`npm start: process ${pid}, which started it, has ended; stopping`);
    void shutdown(0);
  });

  let endpoint = settings.DYNAMODB_ENDPOINT;
  // Without Java nothing can start, whichever ports are free: that is the line to see first.
  if (!endpoint) checkJava();
  const taken = await takenPortLine([
    ...STAGES.map(({ port, variable }) => ({ port, variable, host: settings.HOST })),
    ...(endpoint ? [] : [{ port: settings.DYNAMODB_PORT, variable: 'DYNAMODB_PORT', host: '127.0.0.1' }]),
  ]);
  if (taken) {
    console.error(taken);
    return shutdown(1);
  }
  if (!endpoint) {
    dynamoLocal = await startDynamoLocal({ port: settings.DYNAMODB_PORT, dataDir: settings.DATA_DIR });
    endpoint = dynamoLocal.endpoint;
    console.log(`DynamoDB Local: ${endpoint} (data in ${settings.DATA_DIR})`);
    if (!dynamoLocal.loopbackOnly)
      console.warn(
        'Warning: this Java cannot compile the launcher that keeps DynamoDB Local on 127.0.0.1 (no jdk.compiler module), so it listens on every interface: install a JDK, or keep this machine off untrusted networks',
      );
  } else {
    makePrivateDir(dataDir);
    console.log(`DynamoDB: ${endpoint} (from DYNAMODB_ENDPOINT)`);
  }
  const client = createDynamoClient(endpoint);
  for (const { stage } of STAGES) await ensureTables(client, localTableNames(stage));
  const demoKeys = await Promise.all(STAGES.map(({ stage }) => issueDemoKey(client, stage)));
  client.destroy();

  const urls = await startGateways(endpoint);
  writeRunningStart(dataDir, {
    pid: process.pid,
    dynamoEndpoint: endpoint,
    gateways: Object.fromEntries(STAGES.map(({ stage }, i) => [stage, urls[i] ?? ''])),
  });
  for (const [i, { stage }] of STAGES.entries()) {
    const url = urls[i] ?? '';
    console.log(`${stage.padEnd(10)} ${url}   reference: ${new URL(url).origin}${DOCS_PATH}`);
  }
  console.log(`
Try it with this run's demo keys (customer "${DEMO_CUSTOMER}", pro plan; a new start revokes them):
${STAGES.map((_, i) => `  curl -H 'Authorization: Bearer ${demoKeys[i]}' ${urls[i]}/categories`).join('\n')}

Make your own customers and keys (add --stage staging for staging):
  npm run petstore -- customers set-plan acme free
  npm run petstore -- keys create acme
`);
  reloadOnChange(endpoint);
  console.log('Pet Store API ready (Ctrl-C to stop; edits under functions/, lib/ and infra/local/ reload it)');
}

main().catch(async (error: unknown) => {
  console.error(error instanceof JavaMissingError ? error.message : `npm start failed: ${error instanceof Error ? error.message : error}`);
  await shutdown(1);
});
