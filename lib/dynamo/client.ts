/**
 * The process's DynamoDB clients, built once on first use (a function's cold start) and shared by every store of
 * the process: the operations' with the operation budget, the authorizer's with its own (its Lambda timeout is
 * shorter, and every uncached request waits for it). Built on first use rather than at import so that tooling
 * importing the stores' modules (the OpenAPI writer, the CDK app) needs no runtime configuration.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { DYNAMO_BUDGETS, type DynamoBudget } from './budget.js';
import { createDocumentClient, createDynamoClient } from './create-client.js';

type Kind = 'operation' | 'authorizer';
const clients = new Map<Kind, { client: DynamoDBClient; document: DynamoDBDocumentClient }>();

function clientsOf(kind: Kind, budget: DynamoBudget) {
  let built = clients.get(kind);
  if (!built) {
    const client = createDynamoClient(config().DYNAMODB_ENDPOINT, budget, config().AWS_REGION);
    built = { client, document: createDocumentClient(client) };
    clients.set(kind, built);
  }
  return built;
}

/** The operations' low-level client; its middleware stack is their document client's too. */
export function dynamoClient(): DynamoDBClient {
  return clientsOf('operation', DYNAMO_BUDGETS.operation).client;
}

export function documentClient(): DynamoDBDocumentClient {
  return clientsOf('operation', DYNAMO_BUDGETS.operation).document;
}

/** The authorizer's low-level client. */
export function authorizerDynamoClient(): DynamoDBClient {
  return clientsOf('authorizer', DYNAMO_BUDGETS.authorizer).client;
}

export function authorizerDocumentClient(): DynamoDBDocumentClient {
  return clientsOf('authorizer', DYNAMO_BUDGETS.authorizer).document;
}
