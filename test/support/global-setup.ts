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
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
