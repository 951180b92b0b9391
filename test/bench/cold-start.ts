/**
 * Cold start of each function from the exact bundles `cdk synth` writes to cdk.out, beside a reference bundle of
 * the same code built with NodejsFunction's defaults (CommonJS, main fields "main" first, the AWS SDK left to the
 * runtime): bundle bytes and the median time for a fresh Node process to import the bundle and answer its first
 * invocation, DynamoDB Local behind it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { percentile } from './dynamo-meter.js';

export interface ColdStart {
  fn: string;
  bundleBytes: number;
  referenceBytes: number;
  medianMs: number;
  referenceMedianMs: number;
  ratio: number;
  runs: number;
}

const ROOT = resolve(import.meta.dirname, '../..');

/** Function name (file in functions/) → its asset folder in cdk.out, read from the synthesized template. */
export function synthesizedBundles(): Map<string, string> {
  const templatePath = join(ROOT, 'cdk.out/PetStore-Production.template.json');
  if (!existsSync(templatePath)) {
    console.log('cdk.out is missing: running `npm run synth` (bundles every function with esbuild)…');
    execFileSync('npx', ['cdk', 'synth', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  }
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

const CHILD = `
const started = performance.now();
const mod = await import(process.env.BENCH_BUNDLE);
const handler = mod.handler ?? mod.default?.handler;
const result = await handler(JSON.parse(process.env.BENCH_EVENT), { awsRequestId: 'cold', functionName: 'bench', getRemainingTimeInMillis: () => 10000 });
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, status: result?.statusCode ?? result?.policyDocument?.Statement?.[0]?.Effect }));
`;

function coldRun(bundle: string, event: unknown, env: Record<string, string>): { ms: number; status: unknown } {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: { ...process.env, ...env, BENCH_BUNDLE: bundle, BENCH_EVENT: JSON.stringify(event), LOG_LEVEL: 'WARN' },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

export async function coldStarts(events: Record<string, () => unknown>, env: Record<string, string>, runs: number): Promise<ColdStart[]> {
  const bundles = synthesizedBundles();
  const results: ColdStart[] = [];
  for (const [fn, bundle] of bundles) {
    const event = events[fn];
    if (!event) continue;
    const reference = await referenceBundle(fn);
    const times: number[] = [];
    const referenceTimes: number[] = [];
    // Alternate the two so that drift on a shared machine hits both alike.
    for (let i = 0; i < runs; i++) {
      const a = coldRun(bundle, event(), env);
      const b = coldRun(reference, event(), env);
      if (a.status !== b.status) throw new Error(`${fn}: the bundle answered ${a.status}, the reference ${b.status}`);
      times.push(a.ms);
      referenceTimes.push(b.ms);
    }
    const medianMs = percentile(times, 50);
    const referenceMedianMs = percentile(referenceTimes, 50);
    results.push({
      fn,
      bundleBytes: statSync(bundle).size,
      referenceBytes: statSync(reference).size,
      medianMs,
      referenceMedianMs,
      ratio: medianMs / referenceMedianMs,
      runs,
    });
  }
  return results;
}
