/** The stores the commands act through, built over a target's client and table names, and what several commands share. */
import { auditTrail } from '../audit/trail.js';
import { type AuthAdmin, authAdmin } from '../auth/admin.js';
import { type Customer, isVerifyCustomer } from '../auth/records.js';
import { categoryModeration } from '../categories/moderation.js';
import { createDocumentClient } from '../dynamo/client.js';
import { deprecatedCallStore } from '../rate-limit/deprecated-calls.js';
import { dynamoRateLimiter } from '../rate-limit/dynamo-limiter.js';
import { banLifter } from '../rate-limit/lift-ban.js';
import { counterKeys } from '../rate-limit/shards.js';
import { STACK_NAMES, STAGES } from '../stacks.js';
import { usageHistory } from '../usage/history.js';
import { UsageError } from './args.js';
import type { Target } from './targets.js';
import { awsGatewayKeys, type GatewayKeys, localGatewayKeys } from './usage-plan-keys.js';

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
    gateway: gatewayKeysOf(target),
  };
}

function gatewayKeysOf(target: Target): GatewayKeys {
  if (!target.deployed) return localGatewayKeys;
  const ids = target.usagePlanIds;
  if (!ids || 'unknown' in ids) {
    const why = ids && 'unknown' in ids ? String(ids.unknown) : 'no usage plans';
    const refuse = async (): Promise<never> => {
      throw new Error(`cannot place the customer's gateway key: ${why}`);
    };
    return { place: refuse, remove: refuse };
  }
  const stage = STAGES.find((name) => STACK_NAMES[name] === target.deployed?.stack);
  if (!stage) throw new Error(`no stage has the stack ${target.deployed.stack}`);
  return awsGatewayKeys(stage, ids);
}

export type Stores = ReturnType<typeof stores>;

export async function existingCustomer(auth: AuthAdmin, customerId: string, stage: string): Promise<Customer> {
  const customer = await auth.getCustomer(customerId);
  if (!customer) throw new UsageError(`no customer "${customerId}" in ${stage}`);
  return customer;
}

/** Suspends the customer as read, with its audit record (`customers suspend`, `verify`'s clean-up). */
export function suspendAudited({ auth, audit }: Pick<Stores, 'auth' | 'audit'>, seen: Customer, reason: string | undefined) {
  const changes = { suspended: { from: false, to: true } };
  return auth.suspend(
    seen,
    reason,
    audit.change({ action: 'suspend', customerId: seen.customerId, changes, ...(reason ? { reason } : {}) }),
  );
}

/** `--include-verify` of the listings that leave out `verify`'s temporary customers, and the note counting them. */
export const INCLUDE_VERIFY = 'include-verify';

export function withoutVerify<C extends Pick<Customer, 'purpose'>>(customers: readonly C[], include: boolean) {
  const shown = include ? [...customers] : customers.filter((c) => !isVerifyCustomer(c));
  const leftOut = customers.length - shown.length;
  const note = leftOut
    ? `${leftOut} temporary ${leftOut === 1 ? 'customer' : 'customers'} of verify runs left out (--include-verify to show them)`
    : undefined;
  return { shown, note };
}
