/** Which DynamoDB actions an access level means for each table; an access it does not know fails the synth. */
import type { TableId } from '../../lib/dynamo/tables.js';
import type { Access } from '../../lib/routes.js';

export const TABLE_ACTIONS: Readonly<Record<TableId, Partial<Record<Access, readonly string[]>>>> = {
  // createCategory is one TransactWriteItems of 2 Updates and 3 Puts (IAM checks each part's action); GetItem reads the
  // id counter. Writes here and on counters get GetItem too: ReturnValuesOnConditionCheckFailure reads the item, and
  // whether IAM counts that as a read cannot be tried without a deploy.
  categories: {
    read: ['dynamodb:Query'],
    write: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:GetItem'],
  },
  // The authorizer looks up a customer's plan; the admin CLI, not a function, writes customers.
  customers: { read: ['dynamodb:GetItem'] },
  // The authorizer looks a key up by its hash (the table key); the byKeyId index is for the admin CLI only.
  keys: { read: ['dynamodb:GetItem'] },
  // Windows are read with GetItem, or BatchGetItem when sharded (lib/rate-limit/shards.ts); every count is an
  // UpdateItem. Moving finished days is the usage sweep's alone (USAGE_SWEEP_ACTIONS).
  counters: {
    read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    write: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  },
  // lib/idempotency/persistence.ts: PutItem claims a key, UpdateItem stores the answer, DeleteItem releases a failed
  // request's key, GetItem reads a record the failed Put did not return.
  idempotency: {
    write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
  },
  // The admin CLI's trail of changes: no function reads or writes it, so no access level is defined for it.
  audit: {},
};

/** The usage sweep (lib/usage/day-sweep.ts) on counters: Scan; a move is a TransactWriteItems of Updates; GetItem rereads. */
export const USAGE_SWEEP_ACTIONS = ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/** Which tables a function uses, and how: a route's `tables`, or the authorizer's. */
export type TableUses = Readonly<Partial<Record<TableId, Access>>>;

export function actionsFor(table: TableId, access: Access): readonly string[] {
  const actions = TABLE_ACTIONS[table][access];
  if (!actions)
    throw new Error(`No DynamoDB actions are defined for ${access} access to the ${table} table (infra/constructs/table-access.ts)`);
  return actions;
}
