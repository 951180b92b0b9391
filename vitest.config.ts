import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/sequencer.js';

/** The files that synthesize the app in-process (test/infra/synth-app.ts); synth.cli runs the `cdk synth` process. */
const IN_PROCESS_SYNTHS = 'test/infra/!(synth.cli).test.ts';

/**
 * Files that need a process of their own: module mocks (vi.mock) and functions' instances as worker threads.
 */
const OWN_PROCESS = [
  'test/http/request-path.test.ts',
  'test/categories/cold-create.test.ts',
  'test/rate-limit/unban-instances.http.test.ts',
  'test/local/authorizer-cache.test.ts',
];

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['test/support/fresh-file.ts', 'test/support/setup.ts'],
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most files wait on DynamoDB
    // Local, child processes or timers, so three workers share two cores well (docs/contributing.md, "Tests").
    maxWorkers: 3,
    // The slowest files start first, so that none starts last (test/support/sequencer.ts).
    sequence: { sequencer: SlowestFirst, setupFiles: 'list' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'WARN' },
    projects: [
      // Unisolated: a worker loads aws-cdk-lib and synthesizes each configuration once for all these files. No
      // DynamoDB Local: a synth reads no table.
      { extends: true, test: { name: 'infra', include: [IN_PROCESS_SYNTHS], isolate: false } },
      {
        extends: true,
        test: {
          name: 'rest',
          include: ['test/**/*.test.ts'],
          exclude: [IN_PROCESS_SYNTHS, ...OWN_PROCESS],
          globalSetup: ['test/support/global-setup.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS, globalSetup: ['test/support/global-setup.ts'] },
      },
    ],
  },
});
