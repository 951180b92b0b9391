/**
 * One DynamoDB Local for the whole run, in memory on a random free port (test files isolate by table prefix), and a
 * directory of the run's own (the `npm run synth` its files share, test/support/cli-synth.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    runDir: string;
  }
}

export default async function setup(project: TestProject) {
  // Java's JIT at its first tier only (C1): about half the CPU of a JVM's start, and the run's JVMs are short or
  // mostly idle. Set here, so that the JVMs the tests start (npm start, an outage's own DynamoDB Local) inherit it.
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  // One for the projects that ask (vitest.config.ts), stopped when the last of them ends.
  const run = globalThis as { dynamoLocal?: ReturnType<typeof startDynamoLocal>; dynamoUsers?: number; runDir?: string };
  run.dynamoLocal ??= startDynamoLocal();
  run.runDir ??= mkdtempSync(path.join(tmpdir(), 'petstore-test-run-'));
  run.dynamoUsers = (run.dynamoUsers ?? 0) + 1;
  const dynamo = await run.dynamoLocal;
  const runDir = run.runDir;
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('runDir', runDir);
  // A rerun in watch mode must not read what the last run wrote.
  project.onTestsRerun(() => rmSync(path.join(runDir, 'synth'), { recursive: true, force: true }));
  return async () => {
    run.dynamoUsers = (run.dynamoUsers ?? 1) - 1;
    if (run.dynamoUsers !== 0) return;
    run.dynamoLocal = undefined;
    run.runDir = undefined;
    rmSync(runDir, { recursive: true, force: true });
    await dynamo.stop();
  };
}
