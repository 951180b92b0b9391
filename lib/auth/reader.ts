/**
 * The authorizer's two reads: a key by the SHA-256 of the key, and its customer. Nothing here writes, and nothing
 * the admin writes is imported from here, so the authorizer's bundle carries none of it (a test reads the bundle).
 * Both reads are eventually consistent: the authorizer's answer is cached for its TTL anyway, so a change shows
 * within that bound whichever read sees it.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { hashKey } from './keys.js';
import { type AuthTables, type Customer, customerOf, type KeyRecord, keyOf } from './records.js';

export function authReader(db: DynamoDBDocumentClient, tables: AuthTables) {
  return {
    async findKey(key: string): Promise<KeyRecord | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.keys, Key: { keyHash: hashKey(key) } }));
      return keyOf(Item);
    },

    async getCustomer(customerId: string): Promise<Customer | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tables.customers, Key: { customerId } }));
      return customerOf(Item);
    },
  };
}

export type AuthReader = ReturnType<typeof authReader>;
