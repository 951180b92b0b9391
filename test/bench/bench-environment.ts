/**
 * The bench's DynamoDB Local and tables, and the environment the handlers read, set on this process: call it before
 * any handler module loads (they read their configuration at load).
 */
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';
import { ensureTables } from '../../infra/local/tables.js';
import { CATEGORY_CAP } from '../../lib/categories/limits.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { localTableNames } from '../../lib/dynamo/tables.js';

export async function benchEnvironment(tablePrefix: string) {
  const dynamoLocal = await startDynamoLocal();
  const tables = localTableNames('production', tablePrefix);
  // CATEGORY_ALLOWANCE at the cap: the warm section's one customer makes 900 creates between two resets of the table,
  // all of them creates; at the default of 100, eight in nine would be refusals (409 LIMIT_REACHED).
  const env: Record<string, string> = {
    STAGE: 'production',
    DYNAMODB_ENDPOINT: dynamoLocal.endpoint,
    LOG_LEVEL: 'WARN',
    CATEGORY_ALLOWANCE: String(CATEGORY_CAP),
    ...tables,
  };
  Object.assign(process.env, env);
  const admin = createDynamoClient(dynamoLocal.endpoint);
  await ensureTables(admin, tables);
  return { dynamoLocal, tables, env, admin };
}
