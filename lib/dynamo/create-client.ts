/**
 * How every DynamoDB client of the project is built. Locally it points at DynamoDB Local; on Lambda the SDK finds
 * the regional endpoint and credentials itself. Timeouts are short so that an outage becomes a 503 quickly
 * instead of a hung request; the SDK retries throttling and network errors with backoff (3 attempts).
 */
import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export function createDynamoClient(endpoint?: string): DynamoDBClient {
  return new DynamoDBClient({
    ...(endpoint
      ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
      throwOnRequestTimeout: true,
      // A Lambda instance serves one request at a time; the local gateway serves many at once from one process.
      httpAgent: new Agent({ keepAlive: true, maxSockets: 256 }),
    }),
  });
}
