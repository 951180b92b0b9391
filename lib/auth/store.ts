/**
 * Customers and keys in DynamoDB. A customer holds the plan (and Enterprise's own numbers) and, while suspended,
 * when and why; a key item, keyed by the SHA-256 of the key, points at its customer and may carry an expiry. Built
 * as a factory over a client and table names so that the functions (names from their environment) and the admin CLI
 * (names from the local setup or the stack outputs) share it.
 *
 * Every change the CLI makes is one TransactWriteItems: the change, guarded on the state the CLI read (so the audit
 * record it passes in `also`, which says what changed from what, is true), and the audit record itself.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  ScanCommand,
  type ScanCommandOutput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
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
  /** Set while the account is suspended: all its keys are refused; its keys and usage are kept. */
  suspendedAt: v.optional(v.string()),
  suspendedReason: v.optional(v.string()),
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
  /** When the key stops working (ISO 8601); a key without one never expires. */
  expiresAt: v.optional(v.string()),
  /** The key that replaced this one (`keys roll`), and the one this key replaced: key ids, never keys. */
  rolledTo: v.optional(v.string()),
  rolledFrom: v.optional(v.string()),
});
export type KeyRecord = v.InferOutput<typeof KeyRecordSchema>;

const customerOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(CustomerSchema, item) : undefined);
const keyOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(KeyRecordSchema, item) : undefined);

export class CustomerNotFound extends Error {}
export class KeyNotFound extends Error {}
/** What the CLI read changed before its write landed (another operator, most likely): nothing was written. */
export class ConcurrentChange extends Error {}

/** One part of a TransactWriteItems, such as the audit record that goes with a change. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What a change may take besides its own arguments. */
export interface ChangeOptions {
  now?: Date;
  /** Written in the same transaction as the change, after it (the audit record). */
  also?: readonly TransactItem[];
}

/** A change that issues a key: what goes with it may name the new key (its keyId, never the key). */
export interface NewKeyOptions extends Omit<ChangeOptions, 'also'> {
  also?: (record: KeyRecord) => readonly TransactItem[];
  /** When the new key stops working; none: never. */
  expiresAt?: Date;
}

export function limitsOf(customer: Pick<Customer, 'plan' | 'perMinute' | 'perDay'>): Limits {
  if (customer.plan === 'enterprise') {
    if (!customer.perMinute || !customer.perDay) throw new Error('an enterprise customer without its limits');
    return { perMinute: customer.perMinute, perDay: customer.perDay };
  }
  return PLAN_LIMITS[customer.plan];
}

export function authStore(db: DynamoDBDocumentClient, tables: { customers: string; keys: string }) {
  /**
   * Sends one transaction. When a part's condition failed, `onCondition` gets that part's index and names the error
   * to throw; undefined leaves the SDK's error as it is.
   */
  async function transact(items: TransactItem[], onCondition: (index: number) => Error | undefined): Promise<void> {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const index = (error.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
        const named = index >= 0 ? onCondition(index) : undefined;
        if (named) throw named;
      }
      throw error;
    }
  }

  /** The condition that a customer is still as the caller read it (`undefined`: no condition). */
  function guardOn(seen: Customer | null | undefined): { condition?: string; values: Record<string, string> } {
    if (seen === undefined) return { values: {} };
    if (seen === null) return { condition: 'attribute_not_exists(customerId)', values: {} };
    return { condition: 'updatedAt = :seenUpdatedAt', values: { ':seenUpdatedAt': seen.updatedAt } };
  }

  async function requireCustomer(customerId: string): Promise<Customer> {
    const { Item } = await db.send(new GetCommand({ TableName: tables.customers, Key: { customerId }, ConsistentRead: true }));
    const customer = customerOf(Item);
    if (!customer) throw new CustomerNotFound(`no customer "${customerId}"`);
    return customer;
  }

  async function changeCustomer(
    seen: Customer,
    updateExpression: string,
    values: Record<string, string>,
    options: ChangeOptions,
  ): Promise<void> {
    const guard = guardOn(seen);
    await transact(
      [
        {
          Update: {
            TableName: tables.customers,
            Key: { customerId: seen.customerId },
            UpdateExpression: updateExpression,
            ConditionExpression: guard.condition,
            ExpressionAttributeValues: { ...values, ...guard.values },
          },
        },
        ...(options.also ?? []),
      ],
      () => new ConcurrentChange(`customer "${seen.customerId}" changed while the command ran: nothing was written; run it again`),
    );
  }

  function newKey(
    customerId: string,
    stage: Stage,
    name: string | undefined,
    options: NewKeyOptions & { rolledFrom?: string },
  ): { apiKey: string; record: KeyRecord } {
    const apiKey = generateKey(stage);
    const record: KeyRecord = {
      keyHash: hashKey(apiKey),
      keyId: newKeyId(),
      customerId,
      stage,
      ...(name ? { name } : {}),
      status: 'active',
      createdAt: (options.now ?? new Date()).toISOString(),
      ...(options.expiresAt ? { expiresAt: options.expiresAt.toISOString() } : {}),
      ...(options.rolledFrom ? { rolledFrom: options.rolledFrom } : {}),
    };
    return { apiKey, record };
  }

  /** A key by its public id, read consistently (the CLI guards its writes on what it read). */
  async function findKeyById(keyId: string): Promise<KeyRecord | undefined> {
    const { Items } = await db.send(
      new QueryCommand({
        TableName: tables.keys,
        IndexName: 'byKeyId',
        KeyConditionExpression: 'keyId = :keyId',
        ExpressionAttributeValues: { ':keyId': keyId },
      }),
    );
    // An index is read eventually consistently: the key's own item is read again, consistently.
    const found = keyOf(Items?.[0]);
    if (!found) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tables.keys, Key: { keyHash: found.keyHash }, ConsistentRead: true }));
    return keyOf(Item);
  }

  /** Revokes `seen`, an active key; false when it was revoked meanwhile (then nothing is written, `also` neither). */
  async function revoke(seen: KeyRecord, options: ChangeOptions = {}): Promise<boolean> {
    try {
      await transact(
        [
          {
            Update: {
              TableName: tables.keys,
              Key: { keyHash: seen.keyHash },
              UpdateExpression: 'SET #status = :revoked, revokedAt = :now',
              ConditionExpression: '#status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':revoked': 'revoked', ':active': 'active', ':now': (options.now ?? new Date()).toISOString() },
            },
          },
          ...(options.also ?? []),
        ],
        (index) => (index === 0 ? new ConcurrentChange(`key "${seen.keyId}" was revoked meanwhile`) : undefined),
      );
      return true;
    } catch (error) {
      if (error instanceof ConcurrentChange) return false;
      throw error;
    }
  }

  return {
    /** `consistent` for a read that a guarded write follows (the CLI); the authorizer's read is eventually consistent. */
    async getCustomer(customerId: string, consistent = false): Promise<Customer | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.customers, Key: { customerId }, ConsistentRead: consistent }));
      return customerOf(Item);
    },

    /**
     * Creates the customer or changes its plan; Enterprise takes both numbers, other plans drop them. `seen` is the
     * customer as the caller read it (null: none yet); the write happens only if it is still so.
     */
    async setPlan(
      customerId: string,
      plan: Plan,
      limits?: Limits,
      options: ChangeOptions & { seen?: Customer | null } = {},
    ): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      const guard = guardOn(options.seen);
      await transact(
        [
          {
            Update: {
              TableName: tables.customers,
              Key: { customerId },
              UpdateExpression:
                plan === 'enterprise'
                  ? 'SET #plan = :plan, perMinute = :perMinute, perDay = :perDay, createdAt = if_not_exists(createdAt, :now), updatedAt = :now'
                  : 'SET #plan = :plan, createdAt = if_not_exists(createdAt, :now), updatedAt = :now REMOVE perMinute, perDay',
              ...(guard.condition ? { ConditionExpression: guard.condition } : {}),
              ExpressionAttributeNames: { '#plan': 'plan' },
              ExpressionAttributeValues: {
                ':plan': plan,
                ':now': now,
                ...(plan === 'enterprise' ? { ':perMinute': limits?.perMinute, ':perDay': limits?.perDay } : {}),
                ...guard.values,
              },
            },
          },
          ...(options.also ?? []),
        ],
        () => new ConcurrentChange(`customer "${customerId}" changed while the command ran: nothing was written; run it again`),
      );
      return requireCustomer(customerId);
    },

    /** Every customer, by id. */
    async listCustomers(): Promise<Customer[]> {
      const customers: Customer[] = [];
      let startKey: ScanCommandOutput['LastEvaluatedKey'];
      do {
        const page = await db.send(new ScanCommand({ TableName: tables.customers, ExclusiveStartKey: startKey, ConsistentRead: true }));
        customers.push(...(page.Items ?? []).map((item) => v.parse(CustomerSchema, item)));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return customers.sort((a, b) => a.customerId.localeCompare(b.customerId));
    },

    /** Suspends a customer as `seen` (not suspended); its keys are refused from then on (within the cache TTL). */
    async suspend(seen: Customer, reason: string | undefined, options: ChangeOptions = {}): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      await changeCustomer(
        seen,
        reason ? 'SET suspendedAt = :now, suspendedReason = :reason, updatedAt = :now' : 'SET suspendedAt = :now, updatedAt = :now',
        { ':now': now, ...(reason ? { ':reason': reason } : {}) },
        options,
      );
      return requireCustomer(seen.customerId);
    },

    /** Lifts the suspension of a customer as `seen` (suspended). */
    async resume(seen: Customer, options: ChangeOptions = {}): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      await changeCustomer(seen, 'SET updatedAt = :now REMOVE suspendedAt, suspendedReason', { ':now': now }, options);
      return requireCustomer(seen.customerId);
    },

    async findKey(key: string): Promise<KeyRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.keys, Key: { keyHash: hashKey(key) } }));
      return keyOf(Item);
    },

    /** Issues a key for an existing customer; the plaintext is returned once and never stored. */
    async createKey(
      customerId: string,
      stage: Stage,
      name?: string,
      options: NewKeyOptions = {},
    ): Promise<{ apiKey: string; record: KeyRecord }> {
      const { apiKey, record } = newKey(customerId, stage, name, options);
      await transact(
        [
          { ConditionCheck: { TableName: tables.customers, Key: { customerId }, ConditionExpression: 'attribute_exists(customerId)' } },
          { Put: { TableName: tables.keys, Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' } },
          ...(options.also?.(record) ?? []),
        ],
        (index) => (index === 0 ? new CustomerNotFound(`no customer "${customerId}"`) : undefined),
      );
      return { apiKey, record };
    },

    findKeyById,

    /**
     * Replaces `old` (an active key as the caller read it) with a new key for the same customer; the old key keeps
     * working until `oldExpiresAt`, then is refused as expired. Both in one transaction, guarded on `old`.
     */
    async rollKey(
      old: KeyRecord,
      oldExpiresAt: Date,
      options: NewKeyOptions & { name?: string } = {},
    ): Promise<{ apiKey: string; record: KeyRecord; old: KeyRecord }> {
      const { apiKey, record } = newKey(old.customerId, old.stage, options.name ?? old.name, { ...options, rolledFrom: old.keyId });
      const ends = oldExpiresAt.toISOString();
      await transact(
        [
          {
            Update: {
              TableName: tables.keys,
              Key: { keyHash: old.keyHash },
              UpdateExpression: 'SET expiresAt = :ends, rolledTo = :newKeyId',
              ConditionExpression: `#status = :active AND attribute_not_exists(rolledTo) AND ${old.expiresAt ? 'expiresAt = :seenExpiresAt' : 'attribute_not_exists(expiresAt)'}`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':ends': ends,
                ':newKeyId': record.keyId,
                ':active': 'active',
                ...(old.expiresAt ? { ':seenExpiresAt': old.expiresAt } : {}),
              },
            },
          },
          { Put: { TableName: tables.keys, Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' } },
          ...(options.also?.(record) ?? []),
        ],
        () => new ConcurrentChange(`key "${old.keyId}" changed while the command ran: nothing was written; run it again`),
      );
      return { apiKey, record, old: { ...old, expiresAt: ends, rolledTo: record.keyId } };
    },

    async listKeys(customerId?: string): Promise<KeyRecord[]> {
      const keys: KeyRecord[] = [];
      let startKey: ScanCommandOutput['LastEvaluatedKey'];
      do {
        const page = await db.send(
          new ScanCommand({
            TableName: tables.keys,
            ExclusiveStartKey: startKey,
            ConsistentRead: true,
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

    revoke,

    /** Revokes by public key id. Revoking a revoked key is not an error: the key stays revoked and nothing is written. */
    async revokeKey(keyId: string, options: ChangeOptions = {}): Promise<KeyRecord> {
      const found = await findKeyById(keyId);
      if (!found) throw new KeyNotFound(`no key "${keyId}"`);
      if (found.status === 'revoked') return found;
      const now = options.now ?? new Date();
      if (await revoke(found, { ...options, now })) return { ...found, status: 'revoked', revokedAt: now.toISOString() };
      // Revoked meanwhile by someone else: as it now stands.
      return (await findKeyById(keyId)) ?? found;
    },
  };
}

export type AuthStore = ReturnType<typeof authStore>;
