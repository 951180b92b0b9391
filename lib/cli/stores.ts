/**
 * The stores the commands act through, built over a target's client and table names: the one place that knows
 * how the CLI constructs them.
 */
import { auditTrail } from '../audit/trail.js';
import { type AuthAdmin, authAdmin } from '../auth/admin.js';
import type { Customer } from '../auth/records.js';
import { categoryModeration } from '../categories/moderation.js';
import { createDocumentClient } from '../dynamo/create-client.js';
import { deprecatedCallStore } from '../rate-limit/deprecated-calls.js';
import { dynamoRateLimiter } from '../rate-limit/dynamo-limiter.js';
import { counterKeys } from '../rate-limit/shards.js';
import { banLifter } from '../rate-limit/unban.js';
import { usageHistory } from '../usage/history.js';
import { UsageError } from './args.js';
import type { Target } from './targets.js';

export function stores(target: Target) {
  const db = createDocumentClient(target.client);
  return {
    auth: authAdmin(db, { customers: target.tables.CUSTOMERS_TABLE, keys: target.tables.KEYS_TABLE }),
    // Unban and usage never start a ban, so the ban length does not matter here.
    counters: dynamoRateLimiter(db, target.tables.COUNTERS_TABLE, { banSeconds: 0 }),
    bans: banLifter(db, target.tables.COUNTERS_TABLE),
    deprecatedCalls: deprecatedCallStore(db, target.tables.COUNTERS_TABLE),
    usage: usageHistory(db, target.tables.COUNTERS_TABLE, { counterKeys }),
    audit: auditTrail(db, target.tables.AUDIT_TABLE, target.actor),
    categories: categoryModeration(db, target.tables.CATEGORIES_TABLE),
  };
}

export type Stores = ReturnType<typeof stores>;

/** The customer a command acts on, read consistently; a usage error (exit 2) naming it when there is none. */
export async function existingCustomer(auth: AuthAdmin, customerId: string, stage: string): Promise<Customer> {
  const customer = await auth.getCustomer(customerId);
  if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}`);
  return customer;
}
