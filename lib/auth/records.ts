/** The items of the customers and keys tables, read through these schemas by the authorizer and the admin alike; a plan's limits. */
import * as v from 'valibot';
import { type Limits, PLAN_LIMITS, PlanSchema } from '../plans.js';

export const CustomerSchema = v.object({
  customerId: v.string(),
  plan: PlanSchema,
  /** Only for Enterprise; other plans take PLAN_LIMITS. */
  perMinute: v.optional(v.number()),
  perDay: v.optional(v.number()),
  createdAt: v.string(),
  updatedAt: v.string(),
  suspendedAt: v.optional(v.string()),
  suspendedReason: v.optional(v.string()),
  /** VERIFY_PURPOSE for `verify`'s temporary customer; any other value is read as a customer's. */
  purpose: v.optional(v.string()),
  /** The API Gateway key (gateway-keys.ts); none before `customers assign-gateway-keys` for older customers. */
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
  expiresAt: v.optional(v.string()),
  /** Key ids (`keys roll`), never keys. */
  rolledTo: v.optional(v.string()),
  rolledFrom: v.optional(v.string()),
});
export type KeyRecord = v.InferOutput<typeof KeyRecordSchema>;

export const customerOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(CustomerSchema, item) : undefined);
export const keyOf = (item: Record<string, unknown> | undefined) => (item ? v.parse(KeyRecordSchema, item) : undefined);

export interface AuthTables {
  customers: string;
  keys: string;
}

export const VERIFY_PURPOSE = 'verify';
export const isVerifyCustomer = (customer: Pick<Customer, 'purpose'>) => customer.purpose === VERIFY_PURPOSE;

export function limitsOf(customer: Pick<Customer, 'plan' | 'perMinute' | 'perDay'>): Limits {
  if (customer.plan === 'enterprise') {
    if (!customer.perMinute || !customer.perDay) throw new Error('an enterprise customer without its limits');
    return { perMinute: customer.perMinute, perDay: customer.perDay };
  }
  return PLAN_LIMITS[customer.plan];
}
