/**
 * The process's DynamoDB clients, built once on first use (a function's cold start) and shared by every store of
 * the process: the operations' with the operation budget, the authorizer's with its own (its Lambda timeout is
 * shorter, and every uncached request waits for it). Built on first use rather than at import so that tooling
 * importing the stores' modules (the OpenAPI writer, the CDK app) needs no runtime configuration.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { DYNAMO_BUDGETS, type DynamoBudget } from './budget.js';
import { createDocumentClient, createDynamoClient } from './create-client.js';

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
