/**
 * Every DynamoDB client of the project, built from a time budget (budget.ts) so that an outage becomes the function's
 * 503 before its Lambda timeout. The process's own two are built on first use, so that tooling importing the stores'
 * modules (the OpenAPI writer, the CDK app) needs no runtime configuration.
 */
import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, type marshallOptions } from '@aws-sdk/util-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config.js';
import { budgetRetryStrategy } from './backoff.js';
import { DYNAMO_BUDGETS, type DynamoBudget, type FunctionKind, localBudget } from './budget.js';

/**
 * With an endpoint (DynamoDB Local), the budget with DynamoDB Local's longer timeouts; without one, as deployed.
 * `region` only matters locally; on Lambda the SDK reads it from the environment.
 */
export function createDynamoClient(
  endpoint?: string,
  budget: DynamoBudget = DYNAMO_BUDGETS.operation,
  region = 'us-east-1',
): DynamoDBClient {
  const effective = endpoint ? localBudget(budget) : budget;
  const options = {
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
  };
  const client = new DynamoDBClient(options);
  // The SDK's logger middleware hands its logger a copy of every call's input and output with sensitive members
  // masked, built whether the logger writes or not; ours is the SDK's default, which writes nothing. Without it the warm
  // overhead fell from 518 to 465 µs (createCategory) and 262 to 187 µs (listCategories), medians of 5 runs taken in
  // turn (docs/performance.md, "The request path's own work").
  client.middlewareStack.remove('loggerMiddleware');
  twins.set(client.middlewareStack, () => {
    const twin = new DynamoDBClient({ ...options, cacheMiddleware: true });
    twin.middlewareStack = client.middlewareStack;
    return twin;
  });
  return client;
}

/** Per middleware stack (a client's, which its document clients share): its hot client, or how to build it. */
const twins = new WeakMap<object, DynamoDBClient | (() => DynamoDBClient)>();

/**
 * For the request path's calls (low-level commands, marshalled by hand): a client that sends through the same
 * middleware stack, connections and retry strategy as `db`, but resolves that stack once per command class
 * (`cacheMiddleware`, which a document client refuses). Middleware added to the stack after its first call of a
 * class is not seen by that class's later calls. Warm overhead, medians of 8 runs in turn: createCategory 316 → 243 µs,
 * listCategories 161 → 96 µs (docs/performance.md, "Resolving the middleware stack").
 */
export function hotClient(db: Pick<DynamoDBDocumentClient, 'middlewareStack'>): DynamoDBClient {
  const twin = twins.get(db.middlewareStack);
  if (!twin) throw new Error('hotClient: the document client was not built on createDynamoClient');
  if (twin instanceof DynamoDBClient) return twin;
  const built = twin();
  twins.set(db.middlewareStack, built);
  return built;
}

/** How the document clients marshall values; a copy each, as a document client writes into the options it is given. */
const marshalling = (): marshallOptions => ({ removeUndefinedValues: true });

/** Values for a hot client's command, marshalled as the document clients marshall them. */
export const attributeValues = (values: Record<string, unknown>) => marshall(values, marshalling());

export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: marshalling() });
}

const clients = new Map<FunctionKind, DynamoDBDocumentClient>();

function clientOf(kind: FunctionKind): DynamoDBDocumentClient {
  const built =
    clients.get(kind) ?? createDocumentClient(createDynamoClient(config().DYNAMODB_ENDPOINT, DYNAMO_BUDGETS[kind], config().AWS_REGION));
  clients.set(kind, built);
  return built;
}

export const documentClient = () => clientOf('operation');
export const authorizerDocumentClient = () => clientOf('authorizer');
