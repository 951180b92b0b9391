/** The process's DynamoDB clients, built once at module scope and shared by every store. */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { env } from '../config.js';
import { createDynamoClient } from './create-client.js';

export const dynamo = createDynamoClient(env.DYNAMODB_ENDPOINT);
export const documentClient = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true },
});
