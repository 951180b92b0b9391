/**
 * `cdk synth` as `npm run synth` runs it: the real CLI, real esbuild bundling, cdk-nag and aws-cdk-lib's
 * CloudFormation validation, no AWS credentials. It takes about 15 s, so it runs with the rest of the suite.
 * Bundle sizes are printed so a dependency that bloats a cold start shows up in the test output.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_EXTERNALS } from '../../infra/constructs/api-function.js';
import { STACK_NAMES, STAGES } from '../../lib/stacks.js';
import { readTemplate, resourcesOfType } from '../support/cloudformation.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE_LIMIT_BYTES = 350 * 1024;
const outdir = mkdtempSync(path.join(tmpdir(), 'petstore-synth-'));

interface Bundle {
  stack: string;
  logicalId: string;
  file: string;
  bytes: number;
}
const bundles: Bundle[] = [];

beforeAll(async () => {
  const started = Date.now();
  // Through the npm script, so the test runs exactly what `npm run synth` runs (its explicit alarm opt-out included).
  await promisify(execFile)('npm', ['run', '--silent', 'synth', '--', '--output', outdir], {
    cwd: ROOT,
    // No credentials and no default account: synth must not need them.
    env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_PROFILE: '', CDK_DEFAULT_ACCOUNT: '' },
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(`cdk synth took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const stage of STAGES) {
    const stack = STACK_NAMES[stage];
    const template = readTemplate(JSON.parse(readFileSync(path.join(outdir, `${stack}.template.json`), 'utf8')));
    for (const [logicalId, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const hash = v.parse(v.string(), resource.Properties?.Code?.S3Key).replace(/\.zip$/, '');
      const file = path.join(outdir, `asset.${hash}`, 'index.mjs');
      bundles.push({ stack, logicalId, file, bytes: existsSync(file) ? statSync(file).size : -1 });
    }
  }
  console.table(bundles.map((b) => ({ stack: b.stack, function: b.logicalId, kB: (b.bytes / 1024).toFixed(1) })));
}, 240_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('npm run synth', () => {
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

  it('bundles every function as one ESM file under 350 KiB with the AWS SDK inside and nothing that calls require()', () => {
    expect(bundles.length).toBeGreaterThanOrEqual(2 * 6);
    for (const bundle of bundles) {
      expect(bundle.bytes, bundle.file).toBeGreaterThan(0);
      const code = readFileSync(bundle.file, 'utf8');
      // ESM has no require(); esbuild's stand-in for a bundled CommonJS module's require() of something outside the
      // bundle throws this at run time. None is there, so the bundles need no createRequire banner.
      expect(code, bundle.file).not.toContain('Dynamic require of');
      expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      // Everything but Node's own modules is inside the bundle, the AWS SDK included; the only exceptions are
      // BUNDLE_EXTERNALS, which the SDK loads lazily (dynamic import) in cases that do not occur on Lambda.
      const staticImports = [...code.matchAll(/\bfrom\s*["']([^"']+)["']/g)].map((m) => m[1] ?? '');
      const dynamicImports = [...code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']/g)].map((m) => m[1] ?? '');
      const builtin = (name: string) => builtinModules.includes(name.replace(/^node:/, ''));
      expect(
        staticImports.filter((name) => !builtin(name)),
        bundle.file,
      ).toEqual([]);
      const lazy = (name: string) => BUNDLE_EXTERNALS.some((p) => name === p || name.startsWith(`${p}/`));
      expect(
        dynamicImports.filter((name) => !builtin(name) && !lazy(name)),
        bundle.file,
      ).toEqual([]);
      // 350 KiB (issue 12): the AWS SDK's DynamoDB client plus Powertools' Logger and Metrics (about 34 KiB minified).
      expect(bundle.bytes, bundle.file).toBeLessThan(BUNDLE_LIMIT_BYTES);
      expect(code).not.toContain('sourceMappingURL');
    }
  });

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
