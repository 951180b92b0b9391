/**
 * Runs first for each test file. In an unisolated worker (vitest.config.ts) a file starts from the environment the
 * worker started with, real timers and a fresh copy of the project's modules; node_modules stay loaded.
 */
import { expect, vi } from 'vitest';
import { restoreEnvironment } from './environment.js';

const first = globalThis as { workerEnvironment?: Record<string, string | undefined> };
// The infra project's files share their synths on purpose (test/infra/synth-app.ts).
const shared = /\/test\/infra\/(?!synth\.cli)/.test(expect.getState().testPath ?? '');
if (!first.workerEnvironment) first.workerEnvironment = { ...process.env };
else if (!shared) {
  vi.unstubAllEnvs();
  restoreEnvironment(first.workerEnvironment);
  vi.resetModules();
  vi.useRealTimers();
  vi.unstubAllGlobals();
}
