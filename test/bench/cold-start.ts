/**
 * Cold start of each function from the exact bundles `cdk synth` writes to cdk.out, beside two references measured
 * in the same loop: the same code built with NodejsFunction's defaults (CommonJS, main fields "main" first, the AWS
 * SDK left to the runtime), and the least any of our functions can load, a bundle that only imports the DynamoDB
 * document client and makes one GetItem, built with our bundling options. Bundle bytes and the median time for a
 * fresh Node.js 24 process (Lambda's major version) to import the bundle and answer its first invocation, DynamoDB
 * Local behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUILTIN_ALIASES, BUNDLE_EXTERNALS, BUNDLE_TARGET } from '../../infra/constructs/api-function.js';
import { node24 } from '../support/node24.js';
import { percentile } from './dynamo-meter.js';

export interface ColdStart {
  fn: string;
  bundleBytes: number;
  referenceBytes: number;
  medianMs: number;
  referenceMedianMs: number;
  ratio: number;
  /** The GetItem-only bundle, measured in the same loop. */
  minimalBytes: number;
  minimalMedianMs: number;
  minimalRatio: number;
  runs: number;
}

const ROOT = resolve(import.meta.dirname, '../..');

/** Function name (file in functions/) → its asset folder in cdk.out, read from the synthesized template. */
export function synthesizedBundles(): Map<string, string> {
  const templatePath = join(ROOT, 'cdk.out/PetStore-Production.template.json');
  // Always anew: a cdk.out left from an older checkout would measure old bundles.
  console.log('running `npm run synth` (bundles every function with esbuild)…');
  execFileSync('npx', ['cdk', 'synth', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  const template = JSON.parse(readFileSync(templatePath, 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string>; Properties: { Tags?: { Key: string; Value: string }[] } }>;
  };
  const bundles = new Map<string, string>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const asset = resource.Metadata?.['aws:asset:path'];
    if (!asset) continue;
    const name = logicalId.replace(/^Api/, '').replace(/[0-9A-F]{8}$/, '');
    bundles.set(name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase(), join(ROOT, 'cdk.out', asset, 'index.mjs'));
  }
  return bundles;
}

async function referenceBundle(fn: string): Promise<string> {
  const outdir = join(ROOT, '.bench/reference', fn);
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'index.cjs');
  await build({
    entryPoints: [join(ROOT, 'functions', `${fn}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    external: ['@aws-sdk/*'],
    logLevel: 'error',
  });
  return outfile;
}

/** Imports the document client and makes one GetItem: what every function of ours loads at the least. */
const MINIMAL_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
export const handler = async () => {
  await db.send(new GetCommand({ TableName: process.env.COUNTERS_TABLE, Key: { customerId: 'bench-minimal' } }));
  return { statusCode: 200 };
};
`;

async function minimalBundle(): Promise<string> {
  const outdir = join(ROOT, '.bench/minimal');
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, 'index.mjs');
  await build({
    stdin: { contents: MINIMAL_SOURCE, resolveDir: ROOT, loader: 'ts' },
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

const CHILD = `
const started = performance.now();
const mod = await import(process.env.BENCH_BUNDLE);
const handler = mod.handler ?? mod.default?.handler;
const result = await handler(JSON.parse(process.env.BENCH_EVENT), { awsRequestId: 'cold', functionName: 'bench', getRemainingTimeInMillis: () => 10000 });
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, status: result?.statusCode ?? result?.policyDocument?.Statement?.[0]?.Effect }));
`;

function coldRun(node: string, bundle: string, event: unknown, env: Record<string, string>): { ms: number; status: unknown } {
  const out = execFileSync(node, ['--input-type=module', '-e', CHILD], {
    env: { ...process.env, ...env, BENCH_BUNDLE: bundle, BENCH_EVENT: JSON.stringify(event), LOG_LEVEL: 'WARN' },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

export async function coldStarts(events: Record<string, () => unknown>, env: Record<string, string>, runs: number): Promise<ColdStart[]> {
  const bundles = synthesizedBundles();
  const node = await node24();
  const minimal = await minimalBundle();
  const results: ColdStart[] = [];
  for (const [fn, bundle] of bundles) {
    const event = events[fn];
    if (!event) continue;
    const reference = await referenceBundle(fn);
    const times: number[] = [];
    const referenceTimes: number[] = [];
    const minimalTimes: number[] = [];
    // Alternate the three so that drift on a shared machine hits all alike.
    for (let i = 0; i < runs; i++) {
      const a = coldRun(node, bundle, event(), env);
      const b = coldRun(node, reference, event(), env);
      if (a.status !== b.status) throw new Error(`${fn}: the bundle answered ${a.status}, the reference ${b.status}`);
      const c = coldRun(node, minimal, {}, env);
      if (c.status !== 200) throw new Error(`the GetItem-only reference answered ${c.status}`);
      times.push(a.ms);
      referenceTimes.push(b.ms);
      minimalTimes.push(c.ms);
    }
    const medianMs = percentile(times, 50);
    const referenceMedianMs = percentile(referenceTimes, 50);
    const minimalMedianMs = percentile(minimalTimes, 50);
    results.push({
      fn,
      bundleBytes: statSync(bundle).size,
      referenceBytes: statSync(reference).size,
      medianMs,
      referenceMedianMs,
      ratio: medianMs / referenceMedianMs,
      minimalBytes: statSync(minimal).size,
      minimalMedianMs,
      minimalRatio: medianMs / minimalMedianMs,
      runs,
    });
  }
  return results;
}

/** Issue 12's goals for the bundles: size, and cold start beside both references. */
export function coldGoals(cold: ColdStart[]): { goal: string; met: boolean; figure: string }[] {
  return [
    {
      goal: 'each bundle under 350 KiB',
      met: cold.every((c) => c.bundleBytes < 350 * 1024),
      figure: `largest ${Math.max(...cold.map((c) => c.bundleBytes))} B`,
    },
    {
      goal: 'import at most 0.6 of the reference',
      met: cold.every((c) => c.ratio <= 0.6),
      figure: `worst ratio ${Math.max(...cold.map((c) => c.ratio)).toFixed(2)}`,
    },
    {
      goal: 'import at most 1.5 times the GetItem-only bundle',
      met: cold.every((c) => c.minimalRatio <= 1.5),
      figure: `worst ratio ${Math.max(...cold.map((c) => c.minimalRatio)).toFixed(2)} (GetItem-only bundle ${cold[0]?.minimalBytes} B)`,
    },
  ];
}
