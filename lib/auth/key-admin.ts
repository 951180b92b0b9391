/** The admin's reads and writes of keys; reads are strongly consistent, as the write that follows is guarded on them. */
import { type DynamoDBDocumentClient, GetCommand, paginateScan, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { Stage } from '../stacks.js';
import { type ChangeOptions, ConcurrentChange, CustomerNotFound, KeyNotFound, type NewKeyOptions, transact } from './admin-change.js';
import { generateKey, hashKey, newKeyId } from './keys.js';
import { type AuthTables, type KeyRecord, KeyRecordSchema, keyOf } from './records.js';

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

export function keyAdmin(db: DynamoDBDocumentClient, tables: AuthTables) {
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
        db,
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
    /** Issues a key for an existing customer; the plaintext is returned once and never stored. */
    async createKey(
      customerId: string,
      stage: Stage,
      name?: string,
      options: NewKeyOptions = {},
    ): Promise<{ apiKey: string; record: KeyRecord }> {
      const { apiKey, record } = newKey(customerId, stage, name, options);
      await transact(
        db,
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

    /** Replaces `old` (as read) with a new key; the old one works until `oldExpiresAt`. One transaction, guarded on `old`. */
    async rollKey(
      old: KeyRecord,
      oldExpiresAt: Date,
      options: NewKeyOptions & { name?: string } = {},
    ): Promise<{ apiKey: string; record: KeyRecord; old: KeyRecord }> {
      const { apiKey, record } = newKey(old.customerId, old.stage, options.name ?? old.name, { ...options, rolledFrom: old.keyId });
      const ends = oldExpiresAt.toISOString();
      await transact(
        db,
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
      const filter = customerId
        ? { FilterExpression: 'customerId = :customerId', ExpressionAttributeValues: { ':customerId': customerId } }
        : {};
      for await (const page of paginateScan({ client: db }, { TableName: tables.keys, ConsistentRead: true, ...filter })) {
        keys.push(...(page.Items ?? []).map((item) => v.parse(KeyRecordSchema, item)));
      }
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
