/**
 * The floor of a function's cold start: a bundle of the SDK alone, built with the functions' options, that makes
 * exactly the DynamoDB calls the function's cold invocation made, in the same order and overlap. The calls are
 * recorded by a proxy in front of DynamoDB Local during one extra cold run (not timed), then replayed as they were
 * sent. A replayed write whose conditions no longer hold (a create's id counter has moved on) is refused by
 * DynamoDB after evaluating them, as a real one can be: the floor is then lower, never higher.
 */
import { mkdirSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUILTIN_ALIASES, BUNDLE_EXTERNALS, BUNDLE_TARGET } from '../../infra/constructs/api-function.js';
import { listen } from '../support/listen.js';

export interface RecordedCall {
  /** The DynamoDB operation (X-Amz-Target's suffix: UpdateItem, TransactWriteItems…). */
  operation: string;
  body: unknown;
  start: number;
  end: number;
}

/** A proxy to `endpoint` that notes every call; `take()` hands over the calls since the last take. */
export async function recordingProxy(endpoint: string): Promise<{ url: string; take(): RecordedCall[]; close(): void }> {
  const target = new URL(endpoint);
  let calls: RecordedCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const start = performance.now();
      const body = Buffer.concat(chunks);
      const forwarded = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
            calls.push({ operation, body: JSON.parse(body.toString() || '{}'), start, end: performance.now() });
            res.writeHead(answer.statusCode ?? 500, answer.headers);
            res.end(Buffer.concat(parts));
          });
        },
      );
      forwarded.on('error', () => res.destroy());
      forwarded.end(body);
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = calls;
      calls = [];
      return taken;
    },
    close: () => server.close(),
  };
}

/** Calls grouped as they overlapped: a call that started before every call of the current group ended joins it. */
export function waves(calls: readonly RecordedCall[]): RecordedCall[][] {
  const groups: RecordedCall[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const call of [...calls].sort((a, b) => a.start - b.start)) {
    const last = groups.at(-1);
    if (last && call.start < end) {
      last.push(call);
      end = Math.max(end, call.end);
    } else {
      groups.push([call]);
      end = call.end;
    }
  }
  return groups;
}

/**
 * The floor bundle's source: the document client built as the functions build it (so that its module loads as
 * theirs does), and each recorded call sent as the low-level command it was, group after group.
 */
export function floorSource(calls: readonly RecordedCall[]): string {
  const groups = waves(calls).map((group) => group.map((call) => [`${call.operation}Command`, call.body]));
  const commands = [...new Set(groups.flat().map(([name]) => String(name)))];
  return `
import { DynamoDBClient, ${commands.join(', ')} } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
const COMMANDS = { ${commands.join(', ')} };
const client = new DynamoDBClient({});
client.middlewareStack.remove('loggerMiddleware');
DynamoDBDocumentClient.from(client);
const WAVES = ${JSON.stringify(groups)};
const REFUSALS = new Set(['ConditionalCheckFailedException', 'TransactionCanceledException']);
export const handler = async () => {
  for (const wave of WAVES) {
    await Promise.all(wave.map(([name, input]) => client.send(new COMMANDS[name](input)).catch((error) => {
      if (!REFUSALS.has(error?.name)) throw error;
    })));
  }
  return { statusCode: 200 };
};
`;
}

/** Builds a function's floor with the functions' bundling options (those of the GetItem-only bundle too). */
export async function floorBundle(root: string, fn: string, calls: readonly RecordedCall[]): Promise<string> {
  const outdir = join(resolve(root), '.bench/floor', fn);
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'index.mjs');
  await build({
    stdin: { contents: floorSource(calls), resolveDir: root, loader: 'js' },
    outfile,
    bundle: true,
    platform: 'node',
    target: BUNDLE_TARGET,
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    external: [...BUNDLE_EXTERNALS],
    alias: { ...BUILTIN_ALIASES },
    logLevel: 'error',
  });
  return outfile;
}
