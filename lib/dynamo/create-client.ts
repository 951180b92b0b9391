/**
 * How every DynamoDB client of the project is built, from a time budget (lib/dynamo/budget.ts). Locally it points
 * at DynamoDB Local; on Lambda the SDK finds the regional endpoint and credentials itself. An attempt that cannot
 * connect or is not answered within the budget's timeouts is abandoned, and the SDK retries throttling and network
 * errors with capped backoff, so that an outage becomes the function's 503 before its Lambda timeout.
 */
import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { DYNAMO_BUDGETS, type DynamoBudget, localBudget } from './budget.js';
import { budgetRetryStrategy } from './retry-strategy.js';

/**
 * With an endpoint (DynamoDB Local) the budget's attempts and backoff apply with DynamoDB Local's longer timeouts
 * (LOCAL_TIMEOUTS); without one, the budget exactly as deployed. The default budget is an operation's. `region`
 * only matters locally (DynamoDB Local accepts any); on Lambda the SDK reads it from the environment.
 */
export function createDynamoClient(
  endpoint?: string,
  budget: DynamoBudget = DYNAMO_BUDGETS.operation,
  region = 'us-east-1',
): DynamoDBClient {
  const effective = endpoint ? localBudget(budget) : budget;
  return new DynamoDBClient({
    ...(endpoint ? { endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    maxAttempts: effective.attempts,
    retryStrategy: budgetRetryStrategy(effective),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: effective.connectionTimeoutMs,
      requestTimeout: effective.requestTimeoutMs,
      // Without it the SDK only logs a warning when the request timeout passes, and keeps waiting.
      throwOnRequestTimeout: true,
      // Reused connections: a burst of new ones is what overwhelms DynamoDB Local, not the requests themselves.
      httpAgent: new Agent({ keepAlive: true, maxSockets: 64 }),
    }),
  });
}

/** The document client every store uses, over a client built above. */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
