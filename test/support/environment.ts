/** This test file's environment, as test/support/setup.ts sets it before the file runs: its stage and its own tables. */
import * as v from 'valibot';
import type { TableSpec } from '../../lib/dynamo/tables.js';
import { STAGES, type Stage } from '../../lib/stacks.js';

export function testTable(variable: TableSpec['envVar']): string {
  const name = process.env[variable];
  if (!name) throw new Error(`${variable} is not set: test/support/setup.ts sets every table variable before a test file runs`);
  return name;
}

export function testStage(): Stage {
  return v.parse(v.picklist(STAGES), process.env.STAGE);
}

/** Every table of this test file, by its variable. */
export function testTables(): Record<TableSpec['envVar'], string> {
  return {
    CATEGORIES_TABLE: testTable('CATEGORIES_TABLE'),
    CUSTOMERS_TABLE: testTable('CUSTOMERS_TABLE'),
    KEYS_TABLE: testTable('KEYS_TABLE'),
    COUNTERS_TABLE: testTable('COUNTERS_TABLE'),
    IDEMPOTENCY_TABLE: testTable('IDEMPOTENCY_TABLE'),
    AUDIT_TABLE: testTable('AUDIT_TABLE'),
  };
}

/**
 * Sets process.env, in place, to `saved`: a process.env replaced by a plain object is no longer what worker threads
 * see, so a later file in the same worker (vitest.config.ts) would start its threads with a stale environment.
 */
export function restoreEnvironment(saved: Record<string, string | undefined>): void {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
}
