/**
 * The gateway's throttle per customer, derived from the plans: one API Gateway usage plan per plan and per Enterprise
 * tier, its token bucket, a customer's plan, and what one address may honestly send; none of their readers holds a copy.
 */
import { type Limits, PLAN_LIMITS, type Plan } from './plans.js';

/** Per-minute limits of the Enterprise usage plans, up to what any stage throttle (10,000 a second) carries. */
export const ENTERPRISE_TIERS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 600_000] as const;

export interface UsagePlanSpec {
  /** The plan's name, or `enterprise-<tier>`. */
  name: string;
  perMinute: number;
  /** Token bucket: requests added per second, and its size. */
  rateLimit: number;
  burstLimit: number;
}

/**
 * A bucket that refuses nothing the minute window admits: 2 × perMinute (a minute's allowance at :59 and at :00) plus
 * perMinute for the refusals that lead to a ban; refilled at twice that need (docs/deploying.md, "Isolation").
 */
export function bucketFor(perMinute: number): Pick<UsagePlanSpec, 'rateLimit' | 'burstLimit'> {
  return { rateLimit: Math.ceil((2 * perMinute) / 60), burstLimit: 3 * perMinute };
}

const spec = (name: string, perMinute: number): UsagePlanSpec => ({ name, perMinute, ...bucketFor(perMinute) });

export const USAGE_PLANS: readonly UsagePlanSpec[] = [
  ...(Object.entries(PLAN_LIMITS) as [Exclude<Plan, 'enterprise'>, Limits][]).map(([plan, limits]) => spec(plan, limits.perMinute)),
  ...ENTERPRISE_TIERS.map((tier) => spec(`enterprise-${tier}`, tier)),
];

export function usagePlanNamed(name: string): UsagePlanSpec | undefined {
  return USAGE_PLANS.find((p) => p.name === name);
}

/** The usage plan of a customer: its plan's, or for Enterprise the smallest tier at or above its per-minute limit. */
export function usagePlanFor(plan: Plan, limits: Limits): UsagePlanSpec {
  const name =
    plan === 'enterprise' ? `enterprise-${ENTERPRISE_TIERS.find((t) => t >= limits.perMinute) ?? ENTERPRISE_TIERS.at(-1)}` : plan;
  const found = usagePlanNamed(name);
  if (!found) throw new Error(`no usage plan ${name}`);
  return found;
}

/** What one address may honestly send in 60 s: a minute's allowance at :59 and at :00, and as many GET /rate-limit. */
export function addressNeedPer60s(perMinute: number): number {
  return 3 * perMinute;
}

export function largestPerMinuteUnder(limitPer60s: number): number {
  return Math.floor(limitPer60s / 3);
}

export const LARGEST_FIXED_PLAN = PLAN_LIMITS.business;

/** The per-address limit (requests in 60 s) when cdk.json sets none: exactly what a Business customer may send. */
export const ADDRESS_LIMIT_DEFAULT = addressNeedPer60s(LARGEST_FIXED_PLAN.perMinute);

/** Requests without a well-formed key one address may send in 5 minutes when cdk.json sets none (the keyless rule). */
export const KEYLESS_LIMIT_DEFAULT = 2000;

/** The web ACL's per-address rule counts over this window (one of WAF's 60, 120, 300 and 600 seconds). */
export const ADDRESS_RATE_WINDOW_SECONDS = 60;
