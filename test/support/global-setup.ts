/** One DynamoDB Local for the whole run, in memory on a random free port. Test files isolate by table prefix. */
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  // Java's JIT at its first tier only (C1): about half the CPU of a JVM's start, and the run's JVMs are short or
  // mostly idle. Set here, so that the JVMs the tests start (npm start, an outage's own DynamoDB Local) inherit it.
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  // One for the projects that ask (vitest.config.ts), stopped when the last of them ends.
  const run = globalThis as { dynamoLocal?: ReturnType<typeof startDynamoLocal>; dynamoUsers?: number };
  run.dynamoLocal ??= startDynamoLocal();
  run.dynamoUsers = (run.dynamoUsers ?? 0) + 1;
  const dynamo = await run.dynamoLocal;
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    run.dynamoUsers = (run.dynamoUsers ?? 1) - 1;
    if (run.dynamoUsers !== 0) return;
    run.dynamoLocal = undefined;
    await dynamo.stop();
  };
}
