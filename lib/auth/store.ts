/**
 * Customers and keys in DynamoDB. A customer holds the plan (and Enterprise's own numbers); a key item, keyed by
 * the SHA-256 of the key, points at its customer. Built as a factory over a client and table names so that the
 * functions (names from their environment) and the admin CLI (names from the local setup or the stack outputs)
 * share it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  ScanCommand,
  type ScanCommandOutput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type Limits, PLAN_LIMITS, type Plan, PlanSchema } from '../plans.js';
import type { Stage } from '../stacks.js';
import { generateKey, hashKey, newKeyId } from './keys.js';

/** Items are read through these schemas, so a malformed item fails loudly instead of passing as a customer or key. */
const CustomerSchema = v.object({
  customerId: v.string(),
  plan: PlanSchema,
  /** Only for Enterprise; other plans take PLAN_LIMITS. */
  perMinute: v.optional(v.number()),
  perDay: v.optional(v.number()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type Customer = v.InferOutput<typeof CustomerSchema>;

const KeyRecordSchema = v.object({
  keyHash: v.string(),
  keyId: v.string(),
  customerId: v.string(),
  stage: v.picklist(['production', 'staging']),
  name: v.optional(v.string()),
  status: v.picklist(['active', 'revoked']),
  createdAt: v.string(),
  revokedAt: v.optional(v.string()),
});
export type KeyRecord = v.InferOutput<typeof KeyRecordSchema>;

const customerOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(CustomerSchema, item) : undefined);
const keyOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(KeyRecordSchema, item) : undefined);

export class CustomerNotFound extends Error {}
export class KeyNotFound extends Error {}

export function limitsOf(customer: Pick<Customer, 'plan' | 'perMinute' | 'perDay'>): Limits {
  if (customer.plan === 'enterprise') {
    if (!customer.perMinute || !customer.perDay) throw new Error('an enterprise customer without its limits');
    return { perMinute: customer.perMinute, perDay: customer.perDay };
  }
  return PLAN_LIMITS[customer.plan];
}

export function authStore(db: DynamoDBDocumentClient, tables: { customers: string; keys: string }) {
  return {
    async getCustomer(customerId: string): Promise<Customer | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.customers, Key: { customerId } }));
      return customerOf(Item);
    },

    /** Creates the customer or changes its plan; Enterprise takes both numbers, other plans drop them. */
    async setPlan(customerId: string, plan: Plan, limits?: Limits, now = new Date()): Promise<Customer> {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tables.customers,
          Key: { customerId },
          UpdateExpression:
            plan === 'enterprise'
              ? 'SET #plan = :plan, perMinute = :perMinute, perDay = :perDay, createdAt = if_not_exists(createdAt, :now), updatedAt = :now'
              : 'SET #plan = :plan, createdAt = if_not_exists(createdAt, :now), updatedAt = :now REMOVE perMinute, perDay',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: {
            ':plan': plan,
            ':now': now.toISOString(),
            ...(plan === 'enterprise' ? { ':perMinute': limits?.perMinute, ':perDay': limits?.perDay } : {}),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return v.parse(CustomerSchema, Attributes);
    },

    async findKey(key: string): Promise<KeyRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.keys, Key: { keyHash: hashKey(key) } }));
      return keyOf(Item);
    },

    /** Issues a key for an existing customer; the plaintext is returned once and never stored. */
    async createKey(customerId: string, stage: Stage, name?: string, now = new Date()): Promise<{ apiKey: string; record: KeyRecord }> {
      const apiKey = generateKey(stage);
      const record: KeyRecord = {
        keyHash: hashKey(apiKey),
        keyId: newKeyId(),
        customerId,
        stage,
        ...(name ? { name } : {}),
        status: 'active',
        createdAt: now.toISOString(),
      };
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                ConditionCheck: {
                  TableName: tables.customers,
                  Key: { customerId },
                  ConditionExpression: 'attribute_exists(customerId)',
                },
              },
              { Put: { TableName: tables.keys, Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' } },
            ],
          }),
        );
      } catch (error) {
        if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
          throw new CustomerNotFound(`no customer "${customerId}"`);
        }
        throw error;
      }
      return { apiKey, record };
    },

    async listKeys(customerId?: string): Promise<KeyRecord[]> {
      const keys: KeyRecord[] = [];
      let startKey: ScanCommandOutput['LastEvaluatedKey'];
      do {
        const page = await db.send(
          new ScanCommand({
            TableName: tables.keys,
            ExclusiveStartKey: startKey,
            ...(customerId
              ? { FilterExpression: 'customerId = :customerId', ExpressionAttributeValues: { ':customerId': customerId } }
              : {}),
          }),
        );
        keys.push(...(page.Items ?? []).map((item) => v.parse(KeyRecordSchema, item)));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
    },

    /** Revokes by public key id. Revoking a revoked key is not an error: the key stays revoked. */
    async revokeKey(keyId: string, now = new Date()): Promise<KeyRecord> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tables.keys,
          IndexName: 'byKeyId',
          KeyConditionExpression: 'keyId = :keyId',
          ExpressionAttributeValues: { ':keyId': keyId },
        }),
      );
      const found = keyOf(Items?.[0]);
      if (!found) throw new KeyNotFound(`no key "${keyId}"`);
      if (found.status === 'revoked') return found;
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tables.keys,
          Key: { keyHash: found.keyHash },
          UpdateExpression: 'SET #status = :revoked, revokedAt = :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return v.parse(KeyRecordSchema, Attributes);
    },
  };
}

export type AuthStore = ReturnType<typeof authStore>;
