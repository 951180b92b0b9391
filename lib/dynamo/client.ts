/**
 * The process's DynamoDB clients, built once on first use (a function's cold start) and shared by every store of
 * the process. Built on first use rather than at import so that tooling importing the stores' modules (the
 * OpenAPI writer, the CDK app) needs no runtime configuration.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { createDynamoClient } from './create-client.js';

let client: DynamoDBClient | undefined;
let document: DynamoDBDocumentClient | undefined;

/** The low-level client; its middleware stack is the document client's too. */
export function dynamoClient(): DynamoDBClient {
  client ??= createDynamoClient(config().DYNAMODB_ENDPOINT, config().AWS_REGION);
  return client;
}

export function documentClient(): DynamoDBDocumentClient {
  document ??= DynamoDBDocumentClient.from(dynamoClient(), { marshallOptions: { removeUndefinedValues: true } });
  return document;
}
