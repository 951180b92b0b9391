/**
 * The authorizer's DynamoDB clients, built once at module scope with the authorizer budget: its Lambda timeout is
 * shorter than an operation's, and every uncached request waits for it.
 */
import { env } from '../config.js';
import { DYNAMO_BUDGETS } from './budget.js';
import { createDocumentClient, createDynamoClient } from './create-client.js';

export const authorizerDynamo = createDynamoClient(env.DYNAMODB_ENDPOINT, DYNAMO_BUDGETS.authorizer);
export const authorizerDocumentClient = createDocumentClient(authorizerDynamo);
