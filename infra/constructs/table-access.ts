/**
 * The one place that says which DynamoDB actions an access level means for each table, derived from what the code
 * in lib/ actually sends. A route asking for an access this map does not know fails the synth instead of being
 * granted something broad; there is no `dynamodb:*` and no grantReadWriteData (which adds Scan, BatchWrite, Delete).
 */
import type { TableId } from '../../lib/dynamo/tables.js';
import type { Access } from '../../lib/routes.js';

export const TABLE_ACTIONS: Readonly<Record<TableId, Partial<Record<Access, readonly string[]>>>> = {
  // listCategories queries the CATEGORY partition; createCategory is one TransactWriteItems of two Updates (the id
  // counter, the creator's count) and three conditional Puts (the category, its two name reservations), and IAM checks each part's own action (no ConditionCheck part is used); a new
  // instance first reads the id counter with GetItem.
  // Writes here and on the counters come with GetItem: every conditional write asks for the item back when its
  // condition fails (ReturnValuesOnConditionCheckFailure), which is a read of that item. Nobody here can deploy to
  // find out whether IAM treats it as one, and a missing grant would fail every request, so the read is granted.
  categories: {
    read: ['dynamodb:Query'],
    write: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:GetItem'],
  },
  // The authorizer looks up a customer's plan; the admin CLI, not a function, writes customers.
  customers: { read: ['dynamodb:GetItem'] },
  // The authorizer looks a key up by its hash (the table key); the byKeyId index is for the admin CLI only.
  keys: { read: ['dynamodb:GetItem'] },
  // Reading a customer's windows (getRateLimitStatus) is GetItem, or BatchGetItem for a customer counted on several
  // items (lib/rate-limit/shards.ts); counting a request, a refusal, a ban or a call to a deprecated operation is an
  // UpdateItem (conditional, or an unconditional ADD for refusals). Moving finished days is the usage sweep's alone
  // (USAGE_SWEEP_ACTIONS).
  counters: {
    read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    write: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  },
  // The idempotency records (lib/idempotency/records.ts): a conditional PutItem claims a key, UpdateItem stores the answer, DeleteItem
  // releases a key whose request failed (so a retry runs again), and GetItem reads a record the failed Put did not
  // return. Only a route that takes an Idempotency-Key declares this table.
  idempotency: {
    write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
  },
  // The admin CLI's trail of changes: no function reads or writes it, so no access level is defined for it.
  audit: {},
};

/**
 * The usage sweep (lib/usage/day-sweep.ts) on the counters table: Scan pages through it; a move is a TransactWriteItems
 * of Updates, for which IAM checks UpdateItem on each; GetItem reads an item anew after a lost move, and the sweep's
 * own item, which UpdateItem writes.
 */
export const USAGE_SWEEP_ACTIONS = ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/** Which tables a function uses, and how: a route's `tables`, or the authorizer's. */
export type TableUses = Readonly<Partial<Record<TableId, Access>>>;

export function actionsFor(table: TableId, access: Access): readonly string[] {
  const actions = TABLE_ACTIONS[table][access];
  if (!actions)
    throw new Error(`No DynamoDB actions are defined for ${access} access to the ${table} table (infra/constructs/table-access.ts)`);
  return actions;
}
