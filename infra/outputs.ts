/**
 * The names a deployed environment is found by: stack names and CloudFormation output keys. Free of CDK imports so
 * that the admin CLI's `--aws` mode can read them without loading aws-cdk-lib.
 */
import { TABLES, type TableId } from '../lib/dynamo/tables.js';

export type Stage = 'production' | 'staging';
export const STAGES: readonly Stage[] = ['staging', 'production'];

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

export const TABLE_OUTPUT_KEYS: Readonly<Record<TableId, string>> = Object.fromEntries(
  TABLES.map((t) => [t.id, tableOutputKey(t.id)]),
) as Record<TableId, string>;
