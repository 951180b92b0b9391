/**
 * Cold start of each function from the exact bundles `cdk synth` writes to cdk.out, beside three others measured
 * in the same loop: the floor of its own DynamoDB calls (call-floor.ts: the SDK alone making exactly the function's
 * calls, the goal's measure), the same code built with NodejsFunction's defaults (CommonJS, main fields "main" first,
 * the AWS SDK left to the runtime), and, for information, a bundle that only imports the DynamoDB document client
 * and makes one GetItem, built with our bundling options. Bundle bytes and the median time for a
 * fresh Node.js 24 process (Lambda's major version) to import the bundle and answer its first invocation, DynamoDB
 * Local behind it, in the environment Lambda would give the function (its template's variables, INFO logging and
 * metrics on, credentials and region from the environment).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import * as v from 'valibot';
import { BUILTIN_ALIASES, BUNDLE_EXTERNALS, BUNDLE_TARGET, LAMBDA_RUNTIME, LIVE_ALIAS } from '../../infra/constructs/api-function.js';
import { deployedVariables } from '../support/deployed-variables.js';
import { node24 } from '../support/node24.js';
import { floorBundle, recordingProxy } from './call-floor.js';
import { percentile } from './dynamo-meter.js';
import { roundedUp } from './goal-figure.js';

export type ColdStart = {
  fn: string;
  /** Every file of the function's asset: index.mjs and the separate modules beside it. */
  bundleBytes: number;
  referenceBytes: number;
  medianMs: number;
  referenceMedianMs: number;
  ratio: number;
  /** The SDK alone making exactly this function's calls, measured in the same loop: the goal's measure. */
  floorBytes: number;
  floorMedianMs: number;
  floorRatio: number;
  /** The DynamoDB calls the floor makes (those of the function's cold invocation). */
  floorCalls: string;
  /** The GetItem-only bundle, measured in the same loop (information). */
  minimalBytes: number;
  minimalMedianMs: number;
  minimalRatio: number;
  runs: number;
};

const ROOT = resolve(import.meta.dirname, '../..');

/** A template's resources, as far as this file reads them. */
const TemplateSchema = v.looseObject({
  Resources: v.record(
    v.string(),
    v.looseObject({ Type: v.string(), Metadata: v.optional(v.record(v.string(), v.unknown())), Properties: v.unknown() }),
  ),
});
/** What a Lambda function's properties say of what it runs with. */
const FunctionPropertiesSchema = v.looseObject({
  MemorySize: v.optional(v.number()),
  Environment: v.optional(v.looseObject({ Variables: v.optional(v.record(v.string(), v.unknown())) })),
  LoggingConfig: v.optional(v.looseObject({ ApplicationLogLevel: v.optional(v.string()) })),
});

/** A function as the production template deploys it: its bundle in cdk.out, its variables, memory and log level. */
export interface SynthesizedFunction {
  bundle: string;
  variables: Readonly<Record<string, unknown>>;
  memorySize: number;
  logLevel: string;
}

/** Function name (file in functions/) → what the synthesized template deploys for it. */
export function synthesizedFunctions(): Map<string, SynthesizedFunction> {
  const templatePath = join(ROOT, 'cdk.out/PetStore-Production.template.json');
  // Always anew: a cdk.out left from an older checkout would measure old bundles.
  console.log('running `npm run synth` (bundles every function with esbuild)…');
  // Through the npm script, which decides the production stack's alarm destination (none) as synth needs.
  execFileSync('npm', ['run', '--silent', 'synth'], { cwd: ROOT, stdio: 'inherit' });
  const template = v.parse(TemplateSchema, JSON.parse(readFileSync(templatePath, 'utf8')));
  const functions = new Map<string, SynthesizedFunction>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const asset = resource.Metadata?.['aws:asset:path'];
    if (typeof asset !== 'string') continue;
    const properties = v.parse(FunctionPropertiesSchema, resource.Properties);
    const name = logicalId.replace(/^Api/, '').replace(/[0-9A-F]{8}$/, '');
    functions.set(name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase(), {
      bundle: join(ROOT, 'cdk.out', asset, 'index.mjs'),
      variables: properties.Environment?.Variables ?? {},
      memorySize: properties.MemorySize ?? 128,
      logLevel: properties.LoggingConfig?.ApplicationLogLevel ?? 'INFO',
    });
  }
  return functions;
}

/** DynamoDB Local and the bench's tables, which stand in for the stack's. */
export interface LocalDynamo {
  endpoint: string;
  /** Table variables (CATEGORIES_TABLE, …) → the bench's table names. */
  tables: Readonly<Record<string, string>>;
}

/**
 * A function's environment as Lambda sets it: the template's variables (table references become the bench's
 * tables), then what Lambda's Node.js runtime adds (function name and memory, region, credentials, log format and
 * level, initialization type). The SDK finds DynamoDB Local through its own AWS_ENDPOINT_URL_DYNAMODB, so the clients
 * are built exactly as on Lambda (no DYNAMODB_ENDPOINT). Nothing of the bench's own environment leaks in but PATH.
 */
export function lambdaEnvironment(name: string, fn: SynthesizedFunction, local: LocalDynamo): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ...deployedVariables(name, fn.variables, local.tables),
    AWS_LAMBDA_FUNCTION_NAME: `PetStore-Production-${name}`,
    // API Gateway invokes the live alias, so Lambda runs a published version.
    AWS_LAMBDA_FUNCTION_VERSION: '1',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_FORMAT: 'JSON',
    AWS_LAMBDA_LOG_LEVEL: fn.logLevel,
    AWS_EXECUTION_ENV: `AWS_Lambda_${LAMBDA_RUNTIME.name}`,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: 'local',
    LAMBDA_TASK_ROOT: dirname(fn.bundle),
    TZ: ':UTC',
    AWS_ENDPOINT_URL_DYNAMODB: local.endpoint,
  };
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

/**
 * Imports the document client and makes one GetItem: what every function of ours loads at the least. The client is
 * built as on Lambda: region, credentials and (here DynamoDB Local's) endpoint come from the environment.
 */
const MINIMAL_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
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

/**
 * The child: a fresh Node.js process that imports the bundle and answers one event with a Lambda-like context,
 * timed from before the import to the answer. The function's own output (log lines, EMF metrics) goes to stdout as
 * on Lambda; the figures go to a file.
 */
const CHILD = `
import { writeFileSync } from 'node:fs';
const started = performance.now();
const mod = await import(process.env.BENCH_BUNDLE);
const handler = mod.handler ?? mod.default?.handler;
process.env._X_AMZN_TRACE_ID = 'Root=1-67891233-abcdef012345678912345678;Parent=1234567890abcdef;Sampled=0';
const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
const result = await handler(JSON.parse(process.env.BENCH_EVENT), {
  callbackWaitsForEmptyEventLoop: true, functionName: name, functionVersion: '1',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:' + name + ':${LIVE_ALIAS}',
  memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, awsRequestId: 'cold-start',
  logGroupName: '/aws/lambda/' + name, logStreamName: 'bench', getRemainingTimeInMillis: () => 10000,
});
const ms = performance.now() - started;
writeFileSync(process.env.BENCH_RESULT, JSON.stringify({ ms, status: result?.statusCode ?? result?.policyDocument?.Statement?.[0]?.Effect }));
process.exit(0);
`;

const RESULT_FILE = join(ROOT, '.bench/cold-result.json');

/** The size of a function's code as deployed: its index.mjs and the modules it loads from files of their own. */
const assetBytes = (bundle: string) =>
  readdirSync(dirname(bundle)).reduce((sum, name) => sum + statSync(join(dirname(bundle), name)).size, 0);

function coldRun(node: string, bundle: string, event: unknown, env: Record<string, string>): { ms: number; status: unknown } {
  rmSync(RESULT_FILE, { force: true });
  const child = spawnSync(node, ['--input-type=module', '-e', CHILD], {
    env: { ...env, BENCH_BUNDLE: bundle, BENCH_EVENT: JSON.stringify(event), BENCH_RESULT: RESULT_FILE },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`${bundle} exited with ${child.status}: ${child.stderr.slice(0, 2000)}`);
  return JSON.parse(readFileSync(RESULT_FILE, 'utf8'));
}

/** One untimed cold run through the recording proxy, which runs in this process: so the child runs alongside. */
async function recordedRun(node: string, bundle: string, event: unknown, env: Record<string, string>): Promise<void> {
  const child = spawn(node, ['--input-type=module', '-e', CHILD], {
    env: { ...env, BENCH_BUNDLE: bundle, BENCH_EVENT: JSON.stringify(event), BENCH_RESULT: `${RESULT_FILE}.recorded` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`${bundle} exited with ${code} while its calls were recorded: ${stderr.slice(0, 2000)}`);
}

export async function coldStarts(events: Record<string, () => unknown>, local: LocalDynamo, runs: number): Promise<ColdStart[]> {
  const functions = synthesizedFunctions();
  const node = node24();
  const minimal = await minimalBundle();
  const proxy = await recordingProxy(local.endpoint);
  const results: ColdStart[] = [];
  for (const [fn, deployed] of functions) {
    const event = events[fn];
    if (!event) continue;
    const { bundle } = deployed;
    // The reference and the GetItem-only bundle run in the same environment as the function.
    const env = lambdaEnvironment(fn, deployed, local);
    // (The authorizer's template names no counters table; the GetItem-only bundle reads one.)
    const minimalEnv = { ...env, COUNTERS_TABLE: local.tables.COUNTERS_TABLE ?? '' };
    const reference = await referenceBundle(fn);
    // One cold run through the recording proxy, not timed, gives the calls the floor makes.
    proxy.take();
    await recordedRun(node, bundle, event(), { ...env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url });
    const calls = proxy.take();
    const floor = await floorBundle(ROOT, fn, calls);
    const times: number[] = [];
    const referenceTimes: number[] = [];
    const floorTimes: number[] = [];
    const minimalTimes: number[] = [];
    // Alternate the four so that drift on a shared machine hits all alike.
    for (let i = 0; i < runs; i++) {
      const a = coldRun(node, bundle, event(), env);
      const b = coldRun(node, reference, event(), env);
      if (a.status !== b.status) throw new Error(`${fn}: the bundle answered ${a.status}, the reference ${b.status}`);
      const f = coldRun(node, floor, {}, env);
      if (f.status !== 200) throw new Error(`${fn}: its floor answered ${f.status}`);
      const c = coldRun(node, minimal, {}, minimalEnv);
      if (c.status !== 200) throw new Error(`the GetItem-only reference answered ${c.status}`);
      times.push(a.ms);
      referenceTimes.push(b.ms);
      floorTimes.push(f.ms);
      minimalTimes.push(c.ms);
    }
    const medianMs = percentile(times, 50);
    const referenceMedianMs = percentile(referenceTimes, 50);
    const floorMedianMs = percentile(floorTimes, 50);
    const minimalMedianMs = percentile(minimalTimes, 50);
    results.push({
      fn,
      bundleBytes: assetBytes(bundle),
      referenceBytes: statSync(reference).size,
      medianMs,
      referenceMedianMs,
      ratio: medianMs / referenceMedianMs,
      floorBytes: statSync(floor).size,
      floorMedianMs,
      floorRatio: medianMs / floorMedianMs,
      floorCalls: calls.map((c) => c.operation).join(' '),
      minimalBytes: statSync(minimal).size,
      minimalMedianMs,
      minimalRatio: medianMs / minimalMedianMs,
      runs,
    });
  }
  proxy.close();
  return results;
}

/** Cold start goals, each figure in the goal's own unit: KiB, and times relative to a measure of the same run. */
export function coldGoals(cold: ColdStart[]): { goal: string; met: boolean; figure: string }[] {
  if (cold.length === 0) return [];
  const worst = (ratio: (c: ColdStart) => number) => {
    const c = cold.reduce((a, b) => (ratio(b) > ratio(a) ? b : a));
    return `worst ${roundedUp(ratio(c), 2)}× (${c.fn})`;
  };
  const largest = cold.reduce((a, b) => (b.bundleBytes > a.bundleBytes ? b : a));
  return [
    {
      goal: 'each bundle at most 350 KiB',
      met: cold.every((c) => c.bundleBytes <= 350 * 1024),
      figure: `largest ${roundedUp(largest.bundleBytes / 1024, 1)} KiB (${largest.fn})`,
    },
    {
      goal: 'cold start at most 0.6× the NodejsFunction-defaults reference, every function',
      met: cold.every((c) => c.ratio <= 0.6),
      figure: worst((c) => c.ratio),
    },
    {
      goal: 'cold start at most 1.3× the floor of its own DynamoDB calls, every function',
      met: cold.every((c) => c.floorRatio <= 1.3),
      figure: worst((c) => c.floorRatio),
    },
  ];
}
