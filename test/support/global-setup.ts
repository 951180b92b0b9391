/** One DynamoDB Local for the whole run, in memory on a random free port. Test files isolate by table prefix. */
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
