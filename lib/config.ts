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

/**
 * What the admin CLI takes from the environment in local mode: the DynamoDB to write to (DYNAMODB_ENDPOINT, or
 * DynamoDB Local on DYNAMODB_PORT) and the local table prefix. Read when called rather than at load, because
 * the CLI runs as a tool without the functions' variables and chooses its stage with --stage; an empty
 * variable counts as unset.
 */
export function adminCliConfig(source: Record<string, string | undefined> = process.env): { dynamoEndpoint: string; tablePrefix: string } {
  const schema = v.object({
    DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
    DYNAMODB_PORT: v.optional(v.pipe(v.string(), v.regex(/^\d{1,5}$/, 'DYNAMODB_PORT must be a port number')), '8000'),
    PETSTORE_TABLE_PREFIX: v.optional(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]*$/, 'PETSTORE_TABLE_PREFIX may hold only letters, digits, "_", "." and "-"')),
      'petstore-',
    ),
  });
  const result = v.safeParse(schema, {
    DYNAMODB_ENDPOINT: source.DYNAMODB_ENDPOINT || undefined,
    DYNAMODB_PORT: source.DYNAMODB_PORT || undefined,
    PETSTORE_TABLE_PREFIX: source.PETSTORE_TABLE_PREFIX,
  });
  if (!result.success) throw new Error(`Invalid configuration: ${result.issues.map((i) => i.message).join('; ')}`);
  const { DYNAMODB_ENDPOINT, DYNAMODB_PORT, PETSTORE_TABLE_PREFIX } = result.output;
  return { dynamoEndpoint: DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${DYNAMODB_PORT}`, tablePrefix: PETSTORE_TABLE_PREFIX };
}
