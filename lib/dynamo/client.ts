/**
 * The operations' DynamoDB clients, built once at module scope with the operation budget and shared by every
 * store. The authorizer has its own, with its own budget (lib/dynamo/authorizer-client.ts).
 */
import { env } from '../config.js';
import { DYNAMO_BUDGETS } from './budget.js';
import { createDocumentClient, createDynamoClient } from './create-client.js';

export const dynamo = createDynamoClient(env.DYNAMODB_ENDPOINT, DYNAMO_BUDGETS.operation);
export const documentClient = createDocumentClient(dynamo);
