/**
 * `cdk synth` as `npm run synth` runs it: the real CLI, real esbuild bundling, cdk-nag and aws-cdk-lib's
 * CloudFormation validation, no AWS credentials: the run's one synth (test/support/cli-synth.ts), whose bundles
 * bundles.node24 runs. Bundle sizes are printed so a dependency that bloats a cold start shows up in the test output.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_EXTERNALS } from '../../infra/constructs/api-function.js';
import { IDEMPOTENCY_UTILITY } from '../../infra/constructs/operation-function.js';
import { separateModuleFile } from '../../infra/constructs/separate-modules.js';
import { ROUTES } from '../../lib/routes.js';
import { STACK_NAMES, STAGES } from '../../lib/stacks.js';
import { cliSynth } from '../support/cli-synth.js';
import { readTemplate, resourcesOfType } from '../support/cloudformation.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE_LIMIT_BYTES = 350 * 1024;
/** The cloud assembly `npm run synth` wrote. */
let outdir = '';

interface Bundle {
  stack: string;
  logicalId: string;
  /** The asset's index.mjs, the function's handler module. */
  file: string;
  /** Every file of the asset (index.mjs and the separate modules it loads), by name. */
  files: string[];
  /** All the asset's files together. */
  bytes: number;
}
const bundles: Bundle[] = [];
/** What the CLI printed on stderr: its warnings. */
let synthStderr = '';

beforeAll(async () => {
  const synth = await cliSynth();
  outdir = synth.outdir;
  synthStderr = synth.stderr;
  console.log(`cdk synth took ${synth.seconds.toFixed(1)} s`);
  for (const stage of STAGES) {
    const stack = STACK_NAMES[stage];
    const template = readTemplate(JSON.parse(readFileSync(path.join(outdir, `${stack}.template.json`), 'utf8')));
    for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const hash = v.parse(v.string(), resource.Properties?.Code?.S3Key).replace(/\.zip$/, '');
      const asset = path.join(outdir, `asset.${hash}`);
      const files = existsSync(asset) ? readdirSync(asset).sort() : [];
      const bytes = files.reduce((sum, name) => sum + statSync(path.join(asset, name)).size, 0);
      bundles.push({ stack, logicalId, file: path.join(asset, 'index.mjs'), files, bytes });
    }
  }
  console.table(bundles.map((b) => ({ stack: b.stack, function: b.logicalId, files: b.files.join(' '), kB: (b.bytes / 1024).toFixed(1) })));
}, 240_000);

describe('npm run synth', () => {
  it('prints no warning that feature flags are not configured: cdk.json sets every one aws-cdk-lib recommends', () => {
    expect(synthStderr).not.toMatch(/feature flags are not configured/);
  });

  it('writes both templates and no validation violations', () => {
    for (const stage of STAGES) expect(existsSync(path.join(outdir, `${STACK_NAMES[stage]}.template.json`))).toBe(true);
    const report = v.parse(
      v.object({ pluginReports: v.array(v.object({ violations: v.array(v.unknown()) })) }),
      JSON.parse(readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')),
    );
    expect(report.pluginReports.flatMap((r) => r.violations)).toEqual([]);
  });

  it('stays environment-agnostic without credentials or -c account/region, though the CLI sends its us-east-1 fallback', () => {
    const manifest = v.parse(
      v.object({ artifacts: v.record(v.string(), v.object({ type: v.string(), environment: v.optional(v.string()) })) }),
      JSON.parse(readFileSync(path.join(outdir, 'manifest.json'), 'utf8')),
    );
    for (const stage of STAGES) {
      expect(manifest.artifacts[STACK_NAMES[stage]]?.environment).toBe('aws://unknown-account/unknown-region');
      const template = JSON.parse(readFileSync(path.join(outdir, `${STACK_NAMES[stage]}.template.json`), 'utf8'));
      // (CDK's version-reporting condition lists regions by name; resources and outputs must name none.)
      const resourcesAndOutputs = JSON.stringify([template.Resources, template.Outputs]);
      expect(resourcesAndOutputs).not.toMatch(/\b(us|eu|ap|sa|ca|me|af|il|mx)-[a-z]+-\d\b/);
      expect(JSON.stringify(template.Outputs.ApiUrl)).toContain('{"Ref":"AWS::Region"}');
    }
  });

  it('bundles every function as ESM under 350 KiB with the AWS SDK inside and nothing that calls require()', () => {
    expect(bundles.length).toBeGreaterThanOrEqual(2 * 6);
    for (const bundle of bundles) {
      expect(bundle.files, bundle.file).toContain('index.mjs');
      expect(readFileSync(bundle.file, 'utf8')).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      for (const name of bundle.files) {
        const file = path.join(path.dirname(bundle.file), name);
        expect(name, file).toMatch(/\.mjs$/);
        const code = readFileSync(file, 'utf8');
        // ESM has no require(); esbuild's stand-in for a bundled CommonJS module's require() of something outside
        // the bundle throws this at run time. None is there, so the bundles need no createRequire banner.
        expect(code, file).not.toContain('Dynamic require of');
        // Everything but Node's own modules is inside the asset, the AWS SDK included; the only exceptions are
        // BUNDLE_EXTERNALS, which the SDK loads lazily (dynamic import) in cases that do not occur on Lambda, and
        // the separate modules beside index.mjs (infra/constructs/separate-modules.ts).
        const staticImports = [...code.matchAll(/\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1] ?? '');
        const dynamicImports = [...code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? '');
        const builtin = (name: string) => builtinModules.includes(name.replace(/^node:/, ''));
        expect(
          staticImports.filter((name) => !builtin(name)),
          file,
        ).toEqual([]);
        const lazy = (name: string) => BUNDLE_EXTERNALS.some((p) => name === p || name.startsWith(`${p}/`));
        const beside = (name: string) => name.startsWith('./') && bundle.files.includes(name.slice(2));
        expect(
          dynamicImports.filter((name) => !builtin(name) && !lazy(name) && !beside(name)),
          file,
        ).toEqual([]);
        expect(code).not.toContain('sourceMappingURL');
      }
      // 350 KiB (issue 12), all the function's code together: the AWS SDK's DynamoDB client plus Powertools' Logger
      // and Metrics (about 34 KiB minified), and for createCategory its Idempotency utility.
      expect(bundle.bytes, bundle.file).toBeLessThan(BUNDLE_LIMIT_BYTES);
    }
  });

  it("gives createCategory's idempotency utility a file of its own, which its bundle imports and no other function has", () => {
    const idempotent = ROUTES.filter((route) => route.idempotent).map((route) => route.operationId);
    expect(idempotent).toEqual(['createCategory']);
    const utilityFile = separateModuleFile(IDEMPOTENCY_UTILITY).slice(2);
    for (const bundle of bundles) {
      const creates = bundle.logicalId.startsWith('ApiCreateCategory');
      expect(bundle.files, bundle.file).toEqual(creates ? [utilityFile, 'index.mjs'].sort() : ['index.mjs']);
      if (!creates) continue;
      const index = readFileSync(bundle.file, 'utf8');
      const utility = readFileSync(path.join(path.dirname(bundle.file), utilityFile), 'utf8');
      expect(index).toContain(`import("./${utilityFile}")`);
      // The utility's code is in its file alone (an error message of its persistence layer), and the utility
      // carries no SDK of its own (the DynamoDB protocol's target prefix): it uses the function's document client.
      const marker = 'Failed to put record for already existing idempotency key';
      expect(utility).toContain(marker);
      expect(index).not.toContain(marker);
      expect(utility).not.toContain('DynamoDB_20120810');
    }
  });

  it('fails on a misspelled -c setting before it bundles anything, naming it and the setting it probably meant', () => {
    const failedOutdir = mkdtempSync(path.join(tmpdir(), 'petstore-synth-failed-'));
    try {
      const run = spawnSync('npm', ['run', '--silent', 'synth', '--', '--output', failedOutdir, '-c', 'petstore:production:banSecond=5'], {
        cwd: ROOT,
        env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_PROFILE: '', CDK_DEFAULT_ACCOUNT: '' },
        encoding: 'utf8',
      });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/unknown setting petstore:production:banSecond \(did you mean banSeconds\?\)/);
      expect(readdirSync(failedOutdir).filter((name) => name.startsWith('asset.'))).toEqual([]);
    } finally {
      rmSync(failedOutdir, { recursive: true, force: true });
    }
  }, 60_000);

  it('produces a bundle that loads as ESM on Node.js and checks its table names at load', () => {
    const listCategories = bundles.find((b) => b.logicalId.startsWith('ApiListCategories'));
    expect(listCategories).toBeDefined();
    const load = (env: Record<string, string>) =>
      spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `const m = await import(${JSON.stringify(listCategories?.file)}); console.log(typeof m.handler);`],
        {
          env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...env },
          encoding: 'utf8',
        },
      );
    const ok = load({ STAGE: 'staging', CATEGORIES_TABLE: 'petstore-staging-categories', COUNTERS_TABLE: 'petstore-staging-counters' });
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('function');
    const missing = load({ STAGE: 'staging' });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('Invalid configuration: CATEGORIES_TABLE is not set');
  });
});
