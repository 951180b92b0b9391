/** The admin's store of customers and keys (CLI, `npm start`'s demo key); the authorizer reads through reader.ts alone. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { customerAdmin } from './customer-admin.js';
import { keyAdmin } from './key-admin.js';
import type { AuthTables } from './records.js';

export function authAdmin(db: DynamoDBDocumentClient, tables: AuthTables) {
  return { ...customerAdmin(db, tables), ...keyAdmin(db, tables) };
}

export type AuthAdmin = ReturnType<typeof authAdmin>;
