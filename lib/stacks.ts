/**
 * The environments and the names a deployed one is found by: the stages, their stack names, the API Gateway stage
 * and the CloudFormation output keys. The CDK app declares the stacks and outputs with these names and the admin
 * CLI's `--aws` mode looks them up with the same ones. Free of CDK imports, so the CLI never loads aws-cdk-lib.
 */
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

/**
 * The stage throttle's steady rate, in requests per second, as deployed. It is the one setting that bounds what one
 * customer can be admitted (see `stageCapacity`), so the admin CLI's `--aws` mode reads it from this output before
 * it sells an Enterprise limit.
 */
export const THROTTLE_RATE_OUTPUT = 'StageThrottleRateLimit';

/** The stage's usage plan ids by usage plan name (lib/usage-plans.ts), as JSON: where `customers set-plan --aws` puts keys. */
export const USAGE_PLAN_IDS_OUTPUT = 'UsagePlanIds';

/** Requests one address may send in 60 s past the web ACL (cdk.json wafRateLimitPerIp), as deployed. */
export const ADDRESS_RATE_OUTPUT = 'WafRateLimitPerIp';

/** The stage throttle when `cdk.json` sets none (`throttleRateLimit`, `throttleBurstLimit`). */
export const THROTTLE_DEFAULTS = { rateLimit: 100, burstLimit: 200 } as const;

/**
 * What a stage whose throttle admits `rateLimit` requests a second can admit for one customer: AWS applies the
 * stage's throttle to each method ("per-API, per-stage throttling limits are applied at the API method level"), so a
 * customer calling one operation gets at most `rateLimit` a second, whatever the others do. The admin CLI sells no
 * Enterprise limit above it.
 */
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
