/** The local model of API Gateway's usage plans: which plan holds the gateway key the authorizer named, from the customer. */
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

/** The usage plan holding `gatewayKey`, or none; `fallback` when the record cannot be read (API Gateway needs no DynamoDB). */
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
