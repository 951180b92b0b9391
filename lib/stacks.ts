/** The environments and the names a deployed one is found by, for the CDK app and the CLI's `--aws` mode; no CDK import. */
import type { TableId } from './dynamo/tables.js';

/** The order the CDK app creates the stacks in. */
export const STAGES = ['staging', 'production'] as const;
export type Stage = (typeof STAGES)[number];

export const STACK_NAMES: Readonly<Record<Stage, string>> = {
  production: 'PetStore-Production',
  staging: 'PetStore-Staging',
};

/** The API Gateway stage; both environments' base URLs end in it. */
export const API_STAGE_NAME = 'v1';

export const API_URL_OUTPUT = 'ApiUrl';

/** The stage throttle's rate as deployed: it bounds what one customer can be sold (`stageCapacity`). */
export const THROTTLE_RATE_OUTPUT = 'StageThrottleRateLimit';

/** The stage's usage plan ids by usage plan name (lib/usage-plans.ts), as JSON: where `customers set-plan --aws` puts keys. */
export const USAGE_PLAN_IDS_OUTPUT = 'UsagePlanIds';

/** Requests one address may send in 60 s past the web ACL (cdk.json wafRateLimitPerIp), as deployed. */
export const ADDRESS_RATE_OUTPUT = 'WafRateLimitPerIp';

/** The stage throttle when `cdk.json` sets none (`throttleRateLimit`, `throttleBurstLimit`). */
export const THROTTLE_DEFAULTS = { rateLimit: 100, burstLimit: 200 } as const;

/** What one customer can be admitted: "per-API, per-stage throttling limits are applied at the API method level". */
export function stageCapacity(rateLimit: number): { perMinute: number; perDay: number } {
  return { perMinute: rateLimit * 60, perDay: rateLimit * 86_400 };
}

/** `categories` → `CategoriesTableName`: CloudFormation output keys must be alphanumeric. */
export function tableOutputKey(id: TableId): string {
  return `${id.charAt(0).toUpperCase()}${id.slice(1)}TableName`;
}

// Spelled out per table rather than mapped from TABLES: the compiler then checks that every TableId has one.
export const TABLE_OUTPUT_KEYS: Readonly<Record<TableId, string>> = {
  categories: tableOutputKey('categories'),
  customers: tableOutputKey('customers'),
  keys: tableOutputKey('keys'),
  counters: tableOutputKey('counters'),
  idempotency: tableOutputKey('idempotency'),
  audit: tableOutputKey('audit'),
};
