/**
 * Every DynamoDB client of the project, built from a time budget (budget.ts): DynamoDB Local with an endpoint, the
 * regional endpoint on Lambda, with attempts abandoned within the budget so that an outage becomes the function's
 * 503 before its Lambda timeout. And the process's own two (the operations', the authorizer's), built on first use
 * so that tooling importing the stores' modules (the OpenAPI writer, the CDK app) needs no runtime configuration.
 */
import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config.js';
import { budgetRetryStrategy } from './backoff.js';
import { DYNAMO_BUDGETS, type DynamoBudget, localBudget } from './budget.js';

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
  const client = new DynamoDBClient({
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
  // The SDK's logger middleware hands its logger a copy of every call's input and output with sensitive members
  // masked, built whether the logger writes or not; ours is the SDK's default, which writes nothing. Without it the warm
  // overhead fell from 518 to 465 µs (createCategory) and 262 to 187 µs (listCategories), medians of 5 runs taken in
  // turn (docs/performance.md, "The request path's own work").
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/** The document client every store uses, over a client built above. */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

type Kind = 'operation' | 'authorizer';
const clients = new Map<Kind, DynamoDBDocumentClient>();

function clientsOf(kind: Kind, budget: DynamoBudget) {
  let built = clients.get(kind);
  if (!built) {
    built = createDocumentClient(createDynamoClient(config().DYNAMODB_ENDPOINT, budget, config().AWS_REGION));
    clients.set(kind, built);
  }
  return built;
}

export function documentClient(): DynamoDBDocumentClient {
  return clientsOf('operation', DYNAMO_BUDGETS.operation);
}

export function authorizerDocumentClient(): DynamoDBDocumentClient {
  return clientsOf('authorizer', DYNAMO_BUDGETS.authorizer);
}
