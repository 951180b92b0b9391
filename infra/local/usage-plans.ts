/**
 * The local model of API Gateway's API keys and usage plans: locally, a customer's record (its gateway key and usage
 * plan, written by the admin CLI: lib/auth/customer-admin.ts) is what API Gateway would hold, so `npm start`, the CLI
 * and the tests agree on it. Answers which usage plan of the stage holds the key the authorizer named, if any.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { customerOf } from '../../lib/auth/records.js';
import { config, tableName } from '../../lib/config.js';
import { DYNAMO_BUDGETS } from '../../lib/dynamo/budget.js';
import { createDocumentClient, createDynamoClient } from '../../lib/dynamo/client.js';
import { gatewayLog } from '../../lib/log.js';
import { type UsagePlanSpec, usagePlanNamed } from '../../lib/usage-plans.js';

/** How long a key's usage plan is remembered: a plan change shows within it, as API Gateway's take a moment. */
const REMEMBER_MS = 1_000;

let client: ReturnType<typeof createDocumentClient> | undefined;
const remembered = new Map<string, { expires: number; plan: UsagePlanSpec | undefined }>();

/**
 * The usage plan holding `gatewayKey`, as the record of the customer the authorizer allowed says; undefined when the
 * key is in none (a customer without a gateway key, or a key that is not this customer's). `fallback` is taken when
 * the record cannot be read: API Gateway's keys do not depend on DynamoDB, so neither does the answer.
 */
export async function usagePlanOfKey(customerId: string, gatewayKey: string, fallback: UsagePlanSpec): Promise<UsagePlanSpec | undefined> {
  const now = Date.now();
  const entry = remembered.get(gatewayKey);
  if (entry && entry.expires > now) return entry.plan;
  client ??= createDocumentClient(createDynamoClient(config().DYNAMODB_ENDPOINT, DYNAMO_BUDGETS.authorizer, config().AWS_REGION));
  let plan: UsagePlanSpec | undefined;
  try {
    const { Item } = await client.send(new GetCommand({ TableName: tableName('CUSTOMERS_TABLE'), Key: { customerId } }));
    const customer = customerOf(Item);
    plan = customer?.gatewayKey === gatewayKey && customer.usagePlan ? usagePlanNamed(customer.usagePlan) : undefined;
  } catch (error) {
    gatewayLog.warn('usage plan lookup failed; the plan of the authorizer context stands in', { customerId, error });
    return fallback;
  }
  remembered.set(gatewayKey, { expires: now + REMEMBER_MS, plan });
  return plan;
}
