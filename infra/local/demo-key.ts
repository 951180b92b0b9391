/** A demo customer and key per environment for `npm start`: each start issues a fresh key and revokes the previous ones. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { authAdmin } from '../../lib/auth/admin.js';
import { localTableNames } from '../../lib/dynamo/tables.js';
import type { Stage } from '../../lib/stacks.js';

export const DEMO_CUSTOMER = 'demo';
const DEMO_KEY_NAME = 'npm start demo';

export async function issueDemoKey(client: DynamoDBClient, stage: Stage): Promise<string> {
  const tables = localTableNames(stage);
  const store = authAdmin(DynamoDBDocumentClient.from(client), { customers: tables.CUSTOMERS_TABLE, keys: tables.KEYS_TABLE });
  const demo = await store.getCustomer(DEMO_CUSTOMER);
  if (!demo) await store.setPlan(DEMO_CUSTOMER, 'pro');
  // A demo customer kept in .data/ from before usage plans gets its gateway key, as the upgrade gives every customer.
  else if (!demo.gatewayKey) await store.assignGatewayKey(demo, undefined);
  for (const key of await store.listKeys(DEMO_CUSTOMER))
    if (key.name === DEMO_KEY_NAME && key.status === 'active') await store.revokeKey(key.keyId);
  return (await store.createKey(DEMO_CUSTOMER, stage, DEMO_KEY_NAME)).apiKey;
}
