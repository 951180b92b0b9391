/**
 * `npm start`: DynamoDB Local (or DYNAMODB_ENDPOINT), the tables of both environments, and one local gateway per
 * environment: production on PORT (3000), staging on STAGING_PORT (3001). Data is kept in .data/ across
 * restarts. Ctrl-C stops everything, DynamoDB Local included.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { localConfig } from '../../lib/config.js';
import { createDynamoClient } from '../../lib/dynamo/create-client.js';
import { localTableNames } from '../../lib/dynamo/tables.js';
import { DEMO_CUSTOMER, issueDemoKey } from './demo-key.js';
import { type DynamoLocal, JavaMissingError, startDynamoLocal } from './dynamodb-local.js';
import { ensureTables } from './tables.js';

const settings = localConfig();
export const STAGES = [
  { stage: 'production', port: settings.PORT },
  { stage: 'staging', port: settings.STAGING_PORT },
] as const;

const serveScript = fileURLToPath(new URL('./serve.ts', import.meta.url));
const children: ChildProcess[] = [];
let dynamoLocal: DynamoLocal | undefined;

async function shutdown(code: number): Promise<never> {
  for (const child of children) child.kill('SIGTERM');
  await dynamoLocal?.stop();
  process.exit(code);
}

function startStage(stage: string, port: number, endpoint: string): Promise<string> {
  const child = fork(serveScript, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...localTableNames(stage), STAGE: stage, PORT: String(port), DYNAMODB_ENDPOINT: endpoint },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('message', (message: { ready: boolean; url?: string; message?: string }) =>
      message.ready && message.url ? resolve(message.url) : reject(new Error(`${stage}: ${message.message}`)),
    );
    child.once('exit', (code) => reject(new Error(`the ${stage} gateway exited with code ${code} (is port ${port} free?)`)));
  });
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  let endpoint = settings.DYNAMODB_ENDPOINT;
  if (!endpoint) {
    dynamoLocal = await startDynamoLocal({ port: settings.DYNAMODB_PORT, dataDir: settings.DATA_DIR });
    endpoint = dynamoLocal.endpoint;
    console.log(`DynamoDB Local: ${endpoint} (data in ${settings.DATA_DIR})`);
    if (!dynamoLocal.loopbackOnly) {
      console.warn(
        'Warning: this Java cannot compile the launcher that keeps DynamoDB Local on 127.0.0.1 (no jdk.compiler module), so it listens on every interface: install a JDK, or keep this machine off untrusted networks',
      );
    }
  } else {
    console.log(`DynamoDB: ${endpoint} (from DYNAMODB_ENDPOINT)`);
  }
  const client = createDynamoClient(endpoint);
  for (const { stage } of STAGES) await ensureTables(client, localTableNames(stage));
  const demoKeys = await Promise.all(STAGES.map(({ stage }) => issueDemoKey(client, stage)));
  client.destroy();

  const urls = await Promise.all(STAGES.map(({ stage, port }) => startStage(stage, port, endpoint)));
  for (const [i, { stage }] of STAGES.entries()) console.log(`${stage.padEnd(10)} ${urls[i]}`);
  console.log(`
Try it with this run's demo keys (customer "${DEMO_CUSTOMER}", pro plan; a new start revokes them):
${STAGES.map((_, i) => `  curl -H 'Authorization: Bearer ${demoKeys[i]}' ${urls[i]}/categories`).join('\n')}

Make your own customers and keys (add --stage staging for staging):
  npm run petstore -- customers set-plan acme free
  npm run petstore -- keys create acme
`);
  console.log('Pet Store API ready (Ctrl-C to stop)');
}

main().catch(async (error: unknown) => {
  console.error(error instanceof JavaMissingError ? error.message : `npm start failed: ${error instanceof Error ? error.message : error}`);
  await shutdown(1);
});
