/**
 * The REQUEST authorizer of every operation (identity source: the Authorization header). API Gateway caches its
 * answer per header value for the environment's TTL; revocations and plan changes take effect within it.
 */
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorizationValues } from '../lib/auth/authorization-header.js';
import { decideRequest, toPolicy } from '../lib/auth/authorize.js';
import { authReader } from '../lib/auth/reader.js';
import { config, tableName } from '../lib/config.js';
import { authorizerDocumentClient } from '../lib/dynamo/client.js';
import { log, logContext } from '../lib/log.js';

const store = authReader(authorizerDocumentClient(), { keys: tableName('KEYS_TABLE'), customers: tableName('CUSTOMERS_TABLE') });

const chain = middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>().use(logContext());

export const handler = chain.handler(async (event) => {
  // A REQUEST authorizer sees multiValueHeaders: a repeated Authorization header is refused (docs/api.md, "HTTP details").
  const decision = await decideRequest(authorizationValues(event.headers, event.multiValueHeaders), config().STAGE, store);
  const requestId = event.requestContext?.requestId;
  if (decision.allow) log.info('key accepted', { requestId, keyId: decision.context.keyId, customerId: decision.context.customerId });
  else log.info('key refused', { requestId, reason: decision.refusal });
  return toPolicy(decision, event.methodArn);
});
