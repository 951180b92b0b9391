/**
 * The items of the customers and keys tables, and what a customer's plan means in limits. A customer holds the plan
 * (and Enterprise's own numbers) and, while suspended, when and why; a key item, keyed by the SHA-256 of the key,
 * points at its customer and may carry an expiry. Both the authorizer's reader (reader.ts) and the admin's writes
 * (admin.ts) read items through these schemas, so the two can never disagree on a format.
 */
import * as v from 'valibot';
import { type Limits, PLAN_LIMITS, PlanSchema } from '../plans.js';

/** Items are read through these schemas, so a malformed item fails loudly instead of passing as a customer or key. */
export const CustomerSchema = v.object({
  customerId: v.string(),
  plan: PlanSchema,
  /** Only for Enterprise; other plans take PLAN_LIMITS. */
  perMinute: v.optional(v.number()),
  perDay: v.optional(v.number()),
  createdAt: v.string(),
  updatedAt: v.string(),
  /** Set while the account is suspended: all its keys are refused; its keys and usage are kept. */
  suspendedAt: v.optional(v.string()),
  suspendedReason: v.optional(v.string()),
  /**
   * What a customer that is not one is for: `verify` for the temporary customer of a `petstore verify` run, which
   * `customers list` and the billing export leave out. Any other value is kept and read as a customer's.
   */
  purpose: v.optional(v.string()),
  /**
   * The customer's API Gateway API key: its value (the usage identifier the authorizer names; an internal identifier,
   * never shown to the customer, never logged), its id, and the usage plan it is in (lib/usage-plans.ts). Customers
   * of a release before usage plans have none until `customers assign-gateway-keys` gives them one.
   */
  gatewayKey: v.optional(v.string()),
  gatewayKeyId: v.optional(v.string()),
  usagePlan: v.optional(v.string()),
});
export type Customer = v.InferOutput<typeof CustomerSchema>;

export const KeyRecordSchema = v.object({
  keyHash: v.string(),
  keyId: v.string(),
  customerId: v.string(),
  stage: v.picklist(['production', 'staging']),
  name: v.optional(v.string()),
  status: v.picklist(['active', 'revoked']),
  createdAt: v.string(),
  revokedAt: v.optional(v.string()),
  /** When the key stops working (ISO 8601); a key without one never expires. */
  expiresAt: v.optional(v.string()),
  /** The key that replaced this one (`keys roll`), and the one this key replaced: key ids, never keys. */
  rolledTo: v.optional(v.string()),
  rolledFrom: v.optional(v.string()),
});
export type KeyRecord = v.InferOutput<typeof KeyRecordSchema>;

export const customerOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(CustomerSchema, item) : undefined);
export const keyOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(KeyRecordSchema, item) : undefined);

/** The names of the two tables an auth store works on (from the function's environment, or the CLI's target). */
export interface AuthTables {
  customers: string;
  keys: string;
}

/** The `purpose` of a `petstore verify` run's temporary customer. */
export const VERIFY_PURPOSE = 'verify';
export const isVerifyCustomer = (customer: Pick<Customer, 'purpose'>) => customer.purpose === VERIFY_PURPOSE;

export function limitsOf(customer: Pick<Customer, 'plan' | 'perMinute' | 'perDay'>): Limits {
  if (customer.plan === 'enterprise') {
    if (!customer.perMinute || !customer.perDay) throw new Error('an enterprise customer without its limits');
    return { perMinute: customer.perMinute, perDay: customer.perDay };
  }
  return PLAN_LIMITS[customer.plan];
}
