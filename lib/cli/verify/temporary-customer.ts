/** `verify`'s temporary customer, made and retired through the commands' stores, audited; `purpose` keeps it out of bills. */
import { randomBytes } from 'node:crypto';
import { changed } from '../../audit/trail.js';
import { VERIFY_PURPOSE } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import type { Limits } from '../../plans.js';
import type { Stage } from '../../stacks.js';
import { usagePlanFor } from '../../usage-plans.js';
import { deleteCategory } from '../category-rows.js';
import { createAuditedKey, revokeAuditedKey } from '../key-rows.js';
import { type Stores, suspendAudited } from '../stores.js';
import { type CheckResult, runCheck } from './check.js';

/** A minute a dozen requests use up, a day the checks (fewer than 40 requests) cannot reach. */
export const TEMPORARY_LIMITS: Limits = { perMinute: 10, perDay: 100 };

/** Should the run be killed before it revokes the key, the key expires on its own. */
const KEY_LIFETIME_MS = 60 * 60 * 1000;

const KEY_NAME = 'petstore verify';
const SUSPEND_REASON = 'temporary customer of petstore verify';

export function runName(now: Date): string {
  return `verify-${now.toISOString().replace(/[-:]|\.\d+/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** Creates the customer (never one that exists) and its key, each with its audit record in the same transaction. */
export async function createTemporaryCustomer(
  { auth, audit, gateway }: Pick<Stores, 'auth' | 'audit' | 'gateway'>,
  customerId: string,
  stage: Stage,
  now: Date,
) {
  const limits = TEMPORARY_LIMITS;
  const key = await gateway.place({ customerId }, usagePlanFor('enterprise', limits).name);
  await auth.setPlan(customerId, 'enterprise', limits, {
    now,
    seen: null,
    gateway: key,
    purpose: VERIFY_PURPOSE,
    also: [audit.entry({ action: 'plan-change', customerId, changes: changed({}, { plan: 'enterprise', ...limits }) }, now)],
  });
  try {
    const issued = new Date(nowMs());
    const expiresAt = new Date(issued.getTime() + KEY_LIFETIME_MS);
    const { apiKey, record } = await createAuditedKey({ auth, audit }, customerId, stage, { name: KEY_NAME, expiresAt, now: issued });
    return { customerId, keyId: record.keyId, apiKey, limits };
  } catch (error) {
    // A customer without a key is still an active customer: it goes too.
    await suspend({ auth, audit }, customerId);
    throw error;
  }
}

async function suspend(stores: Pick<Stores, 'auth' | 'audit'>, customerId: string): Promise<string> {
  const seen = await stores.auth.getCustomer(customerId);
  if (!seen) throw new Error(`customer ${customerId} is not there to suspend`);
  if (seen.suspendedAt) return `${customerId}, suspended already`;
  await suspendAudited(stores, seen, SUSPEND_REASON);
  return customerId;
}

async function revoke({ auth, audit }: Pick<Stores, 'auth' | 'audit'>, keyId: string, now: Date): Promise<string> {
  const found = await auth.findKeyById(keyId);
  if (!found) throw new Error(`key ${keyId} is not there to revoke`);
  if (found.status === 'revoked') return `${keyId}, revoked already`;
  return (await revokeAuditedKey({ auth, audit }, found, now)) ? keyId : `${keyId}, revoked meanwhile by someone else`;
}

async function deleteCreated(stores: Pick<Stores, 'categories' | 'audit'>, created: readonly { id: number }[], runCustomer: string) {
  const deleted: number[] = [];
  for (const { id } of created) {
    const seen = await stores.categories.get(id);
    // Gone already, or renamed by an operator into something that is no longer the run's: theirs is the last word.
    if (!seen || seen.createdBy !== runCustomer) continue;
    await deleteCategory(stores, seen, 'made by a verify run');
    deleted.push(id);
  }
  return deleted.length ? `deleted ${deleted.join(', ')}` : 'none to delete';
}

/** Each step of the clean-up is a check: one that fails leaves something for an operator to remove, and the run fails. */
export async function retire(
  stores: Pick<Stores, 'auth' | 'audit' | 'categories' | 'gateway'>,
  customer: Awaited<ReturnType<typeof createTemporaryCustomer>>,
  created: readonly { id: number }[],
): Promise<CheckResult[]> {
  const steps: [string, () => Promise<string>][] = [
    [
      'temporary gateway key deleted',
      async () => {
        const held = await stores.auth.getCustomer(customer.customerId);
        return held ? await stores.gateway.remove(held) : 'none';
      },
    ],
    ['temporary key revoked (audited)', () => revoke(stores, customer.keyId, new Date(nowMs()))],
    ['categories the run created deleted (audited)', () => deleteCreated(stores, created, customer.customerId)],
    ['temporary customer suspended (audited)', () => suspend(stores, customer.customerId)],
  ];
  const results: CheckResult[] = [];
  for (const [name, step] of steps) results.push(await runCheck({ name, run: async () => ({ problems: [], detail: await step() }) }));
  return results;
}
