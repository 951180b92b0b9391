/**
 * The whole runtime configuration of a function or of the local gateway: one valibot schema, parsed once at
 * module load so that a missing or malformed variable fails the cold start, never a request.
 */
import * as v from 'valibot';
import { DEPRECATION_DEFAULTS } from './deprecation.js';

const optionalTable = v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'is not a DynamoDB table name')));
const isoDate = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp such as 2026-01-01T00:00:00Z'));
const positiveInt = (fallback: string) =>
  v.pipe(v.optional(v.string(), fallback), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number));

export const EnvSchema = v.object({
  STAGE: v.picklist(['production', 'staging'], 'STAGE must be production or staging'),
  CATEGORIES_TABLE: optionalTable,
  CUSTOMERS_TABLE: optionalTable,
  KEYS_TABLE: optionalTable,
  COUNTERS_TABLE: optionalTable,
  /** Set locally (DynamoDB Local); unset on Lambda, where the SDK finds the regional endpoint. */
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
  BAN_SECONDS: positiveInt('900'),
  /** The documentation link sent with deprecation headers and the dates of the deprecated operation. */
  DOCS_URL: v.optional(v.pipe(v.string(), v.url()), DEPRECATION_DEFAULTS.docsUrl),
  PETS_DEPRECATED_AT: v.optional(isoDate, DEPRECATION_DEFAULTS.deprecatedAt),
  PETS_SUNSET_AT: v.optional(isoDate, DEPRECATION_DEFAULTS.sunsetAt),
});
export type Env = v.InferOutput<typeof EnvSchema>;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = v.safeParse(EnvSchema, source);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? 'env'}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return result.output;
}

export const env: Env = parseEnv(process.env);

type TableVariable = 'CATEGORIES_TABLE' | 'CUSTOMERS_TABLE' | 'KEYS_TABLE' | 'COUNTERS_TABLE';

/**
 * A table name a module needs. Each store calls this at its own load, so a function fails its cold start when it
 * lacks a table it uses, yet is never handed the names of tables it does not use (least privilege).
 */
export function tableName(variable: TableVariable): string {
  const name = env[variable];
  if (!name) throw new Error(`Invalid configuration: ${variable} is not set`);
  return name;
}
