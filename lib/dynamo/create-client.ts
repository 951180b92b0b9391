/**
 * How every DynamoDB client of the project is built. Locally it points at DynamoDB Local; on Lambda the SDK finds
 * the regional endpoint and credentials itself. Timeouts are short so that an outage becomes a 503 quickly
 * instead of a hung request; the SDK retries throttling and network errors with backoff (3 attempts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export function createDynamoClient(endpoint?: string): DynamoDBClient {
  return new DynamoDBClient({
    ...(endpoint
      ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({ connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true }),
  });
}
