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
