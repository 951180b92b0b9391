/** Customers and keys made straight in this test file's tables, as the admin CLI would make them. */
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { authAdmin } from '../../lib/auth/admin.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import type { Limits, Plan } from '../../lib/plans.js';
import { testStage, testTable } from './environment.js';

export const testDb = DynamoDBDocumentClient.from(createDynamoClient(process.env.DYNAMODB_ENDPOINT), {
  marshallOptions: { removeUndefinedValues: true },
});

export const testAuthStore = authAdmin(testDb, {
  customers: testTable('CUSTOMERS_TABLE'),
  keys: testTable('KEYS_TABLE'),
});

export interface TestCustomer {
  customerId: string;
  apiKey: string;
  keyId: string;
  authorization: string;
}

export async function makeCustomer(plan: Plan = 'enterprise', limits?: Limits, stage = testStage()): Promise<TestCustomer> {
  const customerId = `cust-${randomUUID().slice(0, 12)}`;
  await testAuthStore.setPlan(
    customerId,
    plan,
    plan === 'enterprise' ? (limits ?? { perMinute: 20_000, perDay: 1_000_000_000 }) : undefined,
  );
  const { apiKey, record } = await testAuthStore.createKey(customerId, stage);
  return { customerId, apiKey, keyId: record.keyId, authorization: `Bearer ${apiKey}` };
}

export async function addKey(customerId: string, stage = testStage()): Promise<{ apiKey: string; keyId: string; authorization: string }> {
  const { apiKey, record } = await testAuthStore.createKey(customerId, stage);
  return { apiKey, keyId: record.keyId, authorization: `Bearer ${apiKey}` };
}

/** `key` with its last checksum character changed: never the key itself, which the same character would leave. */
export const withBrokenChecksum = (key: string): string => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
