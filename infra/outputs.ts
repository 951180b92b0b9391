/**
 * Moved to `lib/stacks.ts`, which the admin CLI and the CDK app both import. This re-export only keeps the
 * test/infra files that still import from here compiling; delete it once their imports point at lib/stacks.ts.
 */
export * from '../lib/stacks.js';
