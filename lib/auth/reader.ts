/** The authorizer's two reads, a key by its SHA-256 and its customer; nothing here writes. Eventually consistent: answers are cached. */
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
