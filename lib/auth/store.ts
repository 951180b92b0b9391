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
import { type Limits, PLAN_LIMITS, type Plan } from '../plans.js';
import { generateKey, hashKey, newKeyId, type Stage } from './keys.js';

export interface Customer {
  customerId: string;
  plan: Plan;
  /** Only for Enterprise; other plans take PLAN_LIMITS. */
  perMinute?: number;
  perDay?: number;
  createdAt: string;
  updatedAt: string;
}

export interface KeyRecord {
  keyHash: string;
  keyId: string;
  customerId: string;
  stage: Stage;
  name?: string;
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt?: string;
}

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
      return Item as Customer | undefined;
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
      return Attributes as Customer;
    },

    async findKey(key: string): Promise<KeyRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.keys, Key: { keyHash: hashKey(key) } }));
      return Item as KeyRecord | undefined;
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
        keys.push(...((page.Items ?? []) as KeyRecord[]));
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
      const found = Items?.[0] as KeyRecord | undefined;
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
      return Attributes as KeyRecord;
    },
  };
}

export type AuthStore = ReturnType<typeof authStore>;
