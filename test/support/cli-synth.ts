/**
 * `npm run synth` as the README runs it (no credentials), once per test run: the files that read its cloud assembly
 * (synth.cli, bundles.node24) share it. The first file to ask runs it; the others wait for the result it writes.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Below the hook timeouts of the files that wait (240 s and 300 s). */
const SYNTH_TIMEOUT_MS = 200_000;
const Result = v.object({ seconds: v.number(), stderr: v.string(), error: v.optional(v.string()) });

/** The cloud assembly's directory, what the CLI printed on stderr (its warnings) and how long it took. */
export interface CliSynth {
  outdir: string;
  stderr: string;
  seconds: number;
}

export async function cliSynth(): Promise<CliSynth> {
  const dir = path.join(inject('runDir'), 'synth');
  const outdir = path.join(dir, 'cdk.out');
  const resultFile = path.join(dir, 'result.json');
  // mkdir is atomic: exactly one file creates the directory, and runs the synth.
  const mine = (() => {
    try {
      mkdirSync(dir);
      return true;
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return false;
      throw error;
    }
  })();
  if (mine) {
    const started = Date.now();
    const result = await promisify(execFile)('npm', ['run', '--silent', 'synth', '--', '--output', outdir], {
      cwd: ROOT,
      // No credentials and no default account: synth must not need them.
      env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_PROFILE: '', CDK_DEFAULT_ACCOUNT: '' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: SYNTH_TIMEOUT_MS,
    }).then(
      ({ stderr }) => ({ stderr }),
      (error: Error & { stderr?: string }) => ({ stderr: error.stderr ?? '', error: error.message }),
    );
    // Written whole, then renamed: a waiting file never reads half of it.
    writeFileSync(`${resultFile}.part`, JSON.stringify({ ...result, seconds: (Date.now() - started) / 1000 }));
    renameSync(`${resultFile}.part`, resultFile);
  }
  // The owner writes a result, a failure included, within SYNTH_TIMEOUT_MS; past that its worker is gone.
  const deadline = Date.now() + SYNTH_TIMEOUT_MS + 10_000;
  while (!existsSync(resultFile)) {
    if (Date.now() > deadline) throw new Error('npm run synth: the file that runs it wrote no result');
    await sleep(250);
  }
  const { error, stderr, seconds } = v.parse(Result, JSON.parse(readFileSync(resultFile, 'utf8')));
  if (error) throw new Error(`npm run synth failed: ${error}`);
  return { outdir, stderr, seconds };
}
