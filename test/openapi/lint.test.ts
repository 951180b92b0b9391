/**
 * openapi.json passes the linters an outside reviewer runs: Spectral with its OpenAPI rules and the OWASP API
 * Security rule set (.spectral.yaml), and Redocly CLI's recommended rules (redocly.yaml). Both run from
 * node_modules without a network. A rule that does not apply is switched off in those files with its reason.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const offline = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** One of Spectral's findings, as far as these tests read it. */
const SpectralResultSchema = v.looseObject({ code: v.string(), message: v.string(), path: v.array(v.union([v.string(), v.number()])) });
type SpectralResult = v.InferOutput<typeof SpectralResultSchema>;

/** Spectral's findings of every severity (hints included) on a document. */
async function spectral(file: string): Promise<SpectralResult[]> {
  const args = ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--fail-severity', 'error', '--quiet'];
  // Exit code 1 means findings at the fail severity; the JSON on stdout lists them either way.
  const { stdout } = await run(bin('spectral'), args, { cwd: root, env: offline }).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  return v.parse(v.array(SpectralResultSchema), JSON.parse(stdout));
}

async function redocly(file: string): Promise<{ totals: { errors: number; warnings: number }; problems: unknown[] }> {
  const args = ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'];
  const { stdout } = await run(bin('redocly'), args, { cwd: root, env: offline }).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

const summary = (results: SpectralResult[]) => results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);

describe('openapi.json under the linters', () => {
  it('has no Spectral finding (spectral:oas and OWASP API Security) and no Redocly problem (recommended)', async () => {
    const [spectralResults, redoclyReport] = await Promise.all([spectral('openapi.json'), redocly('openapi.json')]);
    expect(summary(spectralResults)).toEqual([]);
    expect(redoclyReport.problems).toEqual([]);
    expect(redoclyReport.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 90_000); // 5 s alone; both linters at once on a loaded 2-core machine can pass vitest's 30 s

  it('still reports what the rule sets check: a rate-limit-less answer and an unbounded input string', async () => {
    const doc = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'));
    doc.paths['/categories'].get.responses['200'].headers = {};
    delete doc.components.schemas.NewCategory.properties.name.maxLength;
    const file = join(mkdtempSync(join(tmpdir(), 'petstore-lint-')), 'broken.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const codes = (await spectral(file)).map((r) => r.code);
    expect(codes).toContain('petstore-rate-limit-headers');
    expect(codes).toContain('owasp:api4:2023-string-limit');
  }, 90_000);
});
