/**
 * The customer `verify` checks a stage as: made through the same stores and audit trail as `customers set-plan`
 * and `keys create`, and taken out of service the same way as `keys revoke` and `customers suspend`, so that every
 * change it makes is in the audit trail and none outlives the run. Its id names the run (`verify-<UTC time>-<random>`),
 * which is also the name of the category it creates, so an operator can find both; the customer item says it is
 * verify's (`purpose`), so that `customers list` and the billing export leave it out unless asked.
 */
import { randomBytes } from 'node:crypto';
import { changed } from '../../audit/trail.js';
import { VERIFY_PURPOSE } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import type { Limits } from '../../plans.js';
import type { Stage } from '../../stacks.js';
import { usagePlanFor } from '../../usage-plans.js';
import { createAuditedKey } from '../audited-key.js';
import { deleteCategory } from '../category-deletion.js';
import type { Stores } from '../stores.js';
import { type CheckResult, runCheck } from './check.js';

/**
 * Enterprise limits of its own: a minute that a dozen requests use up, and a day that the checks cannot reach
 * (they send fewer than 40 counted requests), so that the X-RateLimit headers show the minute.
 */
export const TEMPORARY_LIMITS: Limits = { perMinute: 10, perDay: 100 };

/**
 * The key stops working on its own an hour after it is made, should the run be killed before it revokes it (the
 * customer then stays active, with no working key).
 */
const KEY_LIFETIME_MS = 60 * 60 * 1000;

const KEY_NAME = 'petstore verify';
const SUSPEND_REASON = 'temporary customer of petstore verify';

export interface TemporaryCustomer {
  customerId: string;
  keyId: string;
  apiKey: string;
  limits: Limits;
}

/** `verify-20261123T194604Z-3fa9c1`: when, and a random part that keeps two runs of one second apart. */
export function runName(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `verify-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** Creates the customer (never one that exists) and its key, each with its audit record in the same transaction. */
export async function createTemporaryCustomer(
  { auth, audit, gateway }: Pick<Stores, 'auth' | 'audit' | 'gateway'>,
  customerId: string,
  stage: Stage,
  now: Date,
): Promise<TemporaryCustomer> {
  const limits = TEMPORARY_LIMITS;
  // Its requests go through its usage plan, as a customer's do (with --aws a key made in API Gateway; retire deletes it).
  const key = await gateway.place({ customerId }, usagePlanFor('enterprise', limits).name);
  await auth.setPlan(customerId, 'enterprise', limits, {
    now,
    seen: null,
    gateway: key,
    // Marked as verify's, so that `customers list` and the billing export leave it out.
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
    await suspend({ auth, audit }, customerId, new Date(nowMs()));
    throw error;
  }
}

async function suspend({ auth, audit }: Pick<Stores, 'auth' | 'audit'>, customerId: string, now: Date): Promise<string> {
  const seen = await auth.getCustomer(customerId);
  if (!seen) throw new Error(`customer ${customerId} is not there to suspend`);
  if (seen.suspendedAt) return `${customerId}, suspended already`;
  await auth.suspend(seen, SUSPEND_REASON, {
    now,
    also: [audit.entry({ action: 'suspend', customerId, changes: { suspended: { from: false, to: true } }, reason: SUSPEND_REASON }, now)],
  });
  return customerId;
}

async function revoke({ auth, audit }: Pick<Stores, 'auth' | 'audit'>, keyId: string, now: Date): Promise<string> {
  const found = await auth.findKeyById(keyId);
  if (!found) throw new Error(`key ${keyId} is not there to revoke`);
  if (found.status === 'revoked') return `${keyId}, revoked already`;
  const revoked = await auth.revoke(found, {
    now,
    also: [
      audit.entry(
        { action: 'key-revoke', customerId: found.customerId, keyId, changes: { status: { from: 'active', to: 'revoked' } } },
        now,
      ),
    ],
  });
  return revoked ? keyId : `${keyId}, revoked meanwhile by someone else`;
}

/** Deletes the categories the run created (each audited, under the temporary customer); what it did, for the report. */
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

/**
 * Revokes the key, deletes the categories the run made and suspends the customer, each audited, whatever the checks did. Each is a check of the run: one
 * that fails leaves something active that an operator must remove, and the run must not pass.
 */
export async function retire(
  stores: Pick<Stores, 'auth' | 'audit' | 'categories' | 'gateway'>,
  customer: TemporaryCustomer,
  created: readonly { id: number }[],
): Promise<CheckResult[]> {
  return [
    await runCheck({
      name: 'temporary gateway key deleted',
      run: async () => {
        const held = await stores.auth.getCustomer(customer.customerId);
        return { problems: [], detail: held ? await stores.gateway.remove(held) : 'none' };
      },
    }),
    await runCheck({
      name: 'temporary key revoked (audited)',
      run: async () => ({ problems: [], detail: await revoke(stores, customer.keyId, new Date(nowMs())) }),
    }),
    await runCheck({
      name: 'categories the run created deleted (audited)',
      run: async () => ({ problems: [], detail: await deleteCreated(stores, created, customer.customerId) }),
    }),
    await runCheck({
      name: 'temporary customer suspended (audited)',
      run: async () => ({ problems: [], detail: await suspend(stores, customer.customerId, new Date(nowMs())) }),
    }),
  ];
}
