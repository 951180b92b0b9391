/** The plans of the contract and their per-minute and per-day limits; Enterprise numbers are set per customer. */
import * as v from 'valibot';

export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export const PlanSchema = v.picklist(PLAN_NAMES);
export type Plan = v.InferOutput<typeof PlanSchema>;

export interface Limits {
  perMinute: number;
  perDay: number;
}

export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, Limits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** Enterprise limits: whole numbers up to this; per minute, up to PER_MINUTE_MAX (rate-limit/shards.ts). */
export const CUSTOM_LIMIT_MAX = 1_000_000_000;
