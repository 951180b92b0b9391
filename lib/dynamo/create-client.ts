/**
 * How every DynamoDB client of the project is built. Locally it points at DynamoDB Local; on Lambda the SDK finds
 * the regional endpoint and credentials itself. Timeouts are short so that an outage becomes a 503 quickly
 * instead of a hung request; the SDK retries throttling and network errors with backoff (3 attempts).
 */
import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** `region` only matters locally (DynamoDB Local accepts any); on Lambda the SDK reads it from the environment. */
export function createDynamoClient(endpoint?: string, region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({
    ...(endpoint ? { endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    maxAttempts: 3,
    requestHandler: new NodeHttpHandler({
      // The connection timer also runs while a request waits for a free socket. A Lambda instance serves one
      // request at a time, so 2 s only catches a network that swallows packets; the local gateway queues many
      // requests per process, and DynamoDB Local refuses at once when it is down, so it can wait longer.
      connectionTimeout: endpoint ? 10_000 : 2_000,
      requestTimeout: 5_000,
      throwOnRequestTimeout: true,
      // Reused connections: a burst of new ones is what overwhelms DynamoDB Local, not the requests themselves.
      httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }),
    }),
  });
}
