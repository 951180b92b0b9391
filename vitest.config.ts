import { defineConfig } from 'vitest/config';

/** The files that synthesize the app in-process (test/infra/synth-app.ts); synth.cli runs the `cdk synth` process. */
const IN_PROCESS_SYNTHS = 'test/infra/!(synth.cli).test.ts';

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most files wait on DynamoDB
    // Local, child processes or timers, so three workers share two cores well (docs/contributing.md, "Tests").
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'WARN' },
    projects: [
      // Unisolated: a worker loads aws-cdk-lib and synthesizes each configuration once for all these files.
      { extends: true, test: { name: 'infra', include: [IN_PROCESS_SYNTHS], isolate: false } },
      { extends: true, test: { name: 'rest', include: ['test/**/*.test.ts'], exclude: [IN_PROCESS_SYNTHS] } },
    ],
  },
});
