/**
 * The gateway's throttle per customer, derived from the plans (plans.ts): one API Gateway usage plan per plan and per
 * Enterprise tier, its token bucket, which one a customer belongs to, and what one source address may honestly send.
 * The stack, the local gateway, the CLI and the tests all read these figures; none holds a copy.
 */
import { type Limits, PLAN_LIMITS, type Plan } from './plans.js';

/**
 * Enterprise customers share a usage plan per tier: the tier's figure is the per-minute limit its throttle is sized
 * for, and a customer goes to the smallest tier at or above its own limit. Up to 600,000 a minute, the most any
 * stage throttle (10,000 a second) can carry.
 */
export const ENTERPRISE_TIERS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 600_000] as const;

export interface UsagePlanSpec {
  /** The usage plan's name within its stage: the plan's name, or `enterprise-<tier>`. */
  name: string;
  /** The per-minute limit it is sized for. */
  perMinute: number;
  /** Token bucket: tokens (requests) added per second, and the bucket's size. */
  rateLimit: number;
  burstLimit: number;
}

/**
 * A token bucket that refuses nothing a fixed per-minute window admits. Windows are aligned to the minute, so a client
 * may send a whole minute's allowance at :59 and another at :00: the bucket holds 2 × perMinute for that, plus
 * perMinute more for the refusals that lead to a ban (max(10, perMinute) of them in a minute; the ban is answered by
 * our functions, never pre-empted by the gateway). Refilling at perMinute/60 a second is exactly enough after such a
 * burst; the rate is twice that, since AWS applies throttles on a best-effort basis and GET /rate-limit, free of
 * quota, shares the bucket (docs/deploying.md, "Isolation").
 */
export function bucketFor(perMinute: number): Pick<UsagePlanSpec, 'rateLimit' | 'burstLimit'> {
  return { rateLimit: Math.ceil((2 * perMinute) / 60), burstLimit: 3 * perMinute };
}

const spec = (name: string, perMinute: number): UsagePlanSpec => ({ name, perMinute, ...bucketFor(perMinute) });

/** Every usage plan of a stage, the plans' first, then the Enterprise tiers. */
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

/**
 * What one source address may honestly send in 60 seconds for a customer of `perMinute`: a whole minute's allowance at
 * :59 and another at :00 (any 60 s touch two aligned minutes), and as many GET /rate-limit calls as one minute's
 * allowance. The web ACL's per-address limit must be at least this for the largest plan without an allow-list.
 */
export function addressNeedPer60s(perMinute: number): number {
  return 3 * perMinute;
}

/** The largest per-minute limit whose honest traffic fits under a per-address limit of `limitPer60s`. */
export function largestPerMinuteUnder(limitPer60s: number): number {
  return Math.floor(limitPer60s / 3);
}

/** The plan every address-limit must admit from one address: the largest plan sold without an allow-list. */
export const LARGEST_FIXED_PLAN = PLAN_LIMITS.business;

/** The per-address limit (requests in 60 s) when cdk.json sets none: exactly what a Business customer may send. */
export const ADDRESS_LIMIT_DEFAULT = addressNeedPer60s(LARGEST_FIXED_PLAN.perMinute);

/** Requests without a well-formed key one address may send in 5 minutes when cdk.json sets none (the keyless rule). */
export const KEYLESS_LIMIT_DEFAULT = 2000;

/** The web ACL's per-address rule counts over this window (one of WAF's 60, 120, 300 and 600 seconds). */
export const ADDRESS_RATE_WINDOW_SECONDS = 60;
