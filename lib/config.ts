/**
 * The whole runtime configuration, and the only module that reads process.env: the functions' schema, parsed on first
 * use (on Lambda the cold start: a bad variable fails it, never a request), and the local tooling's.
 */
import * as v from 'valibot';
import { CATEGORY_ALLOWANCE_DEFAULT, CATEGORY_CAP } from './categories/limits.js';
import type { TableSpec } from './dynamo/tables.js';

const tableVariable = v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'is not a DynamoDB table name')));
const isoDate = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp such as 2026-01-01T00:00:00Z'));
const wholeNumber = (fallback: string) =>
  v.pipe(v.optional(v.string(), fallback), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number));
/** An unset variable and one set to "" (as a shell's `X=` does) both mean "not set". */
const optionalText = <T extends v.GenericSchema<string>>(schema: T) =>
  v.pipe(
    v.optional(v.string()),
    v.transform((s) => (s === '' ? undefined : s)),
    v.optional(schema),
  );

/** A deprecated operation's dates and documentation link on a stage; each route names its own (`overrides`). */
const DEPRECATION_DATE_VARIABLES = {
  PETS_DEPRECATED_AT: v.optional(isoDate),
  PETS_SUNSET_AT: v.optional(isoDate),
};
const DOCS_URL_VARIABLES = {
  DOCS_URL: v.optional(v.pipe(v.string(), v.url())),
};
export type DeprecationDateVariable = keyof typeof DEPRECATION_DATE_VARIABLES;
export type DocsUrlVariable = keyof typeof DOCS_URL_VARIABLES;

export const EnvSchema = v.object({
  STAGE: v.picklist(['production', 'staging'], 'STAGE must be production or staging'),
  CATEGORIES_TABLE: tableVariable,
  CUSTOMERS_TABLE: tableVariable,
  KEYS_TABLE: tableVariable,
  COUNTERS_TABLE: tableVariable,
  IDEMPOTENCY_TABLE: tableVariable,
  /** Set locally (DynamoDB Local); unset on Lambda, where the SDK finds the regional endpoint. */
  DYNAMODB_ENDPOINT: optionalText(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
  AWS_REGION: v.optional(v.string()),
  BAN_SECONDS: wholeNumber('900'),
  CATEGORY_ALLOWANCE: v.pipe(
    wholeNumber(String(CATEGORY_ALLOWANCE_DEFAULT)),
    v.minValue(1, 'CATEGORY_ALLOWANCE must be at least 1'),
    v.maxValue(CATEGORY_CAP, `CATEGORY_ALLOWANCE must be at most ${CATEGORY_CAP}, the environment's cap`),
  ),
  USAGE_RETENTION_DAYS: v.pipe(wholeNumber('400'), v.minValue(1, 'USAGE_RETENTION_DAYS must be at least 1')),
  ...DOCS_URL_VARIABLES,
  ...DEPRECATION_DATE_VARIABLES,
});
export type Env = v.InferOutput<typeof EnvSchema>;
/** The CDK stack sets the functions' variables by these names, checked by the compiler. */
export type EnvVariable = keyof typeof EnvSchema.entries;
export type FunctionEnvironment = Partial<Record<EnvVariable, string>>;

function parse<T extends v.GenericSchema>(schema: T, source: Record<string, string | undefined>, what: string): v.InferOutput<T> {
  const result = v.safeParse(schema, source);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? what}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return result.output;
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  return parse(EnvSchema, source, 'env');
}

let current: Env | undefined;

export function config(): Env {
  current ??= parseEnv(process.env);
  return current;
}

/** @internal Replaces the configuration (tests, tooling); `undefined` parses process.env again on next use. */
export function setConfig(next: Env | undefined): void {
  current = next;
}

/** The table variables a function can be handed (the audit table's is the CLI's alone). */
type TableVariable = TableSpec['envVar'] & EnvVariable;

/** Read at a store's build, so a function lacking a table it uses fails its cold start. */
export function tableName(variable: TableVariable): string {
  const name = config()[variable];
  if (!name) throw new Error(`Invalid configuration: ${variable} is not set`);
  return name;
}

export function runtime(): { onLambda: boolean } {
  return { onLambda: Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) };
}

const port = (fallback: string) =>
  v.pipe(v.optional(v.string(), fallback), v.regex(/^\d{1,5}$/, 'must be a port number'), v.transform(Number), v.maxValue(65_535));

/** What the local gateway and `npm start` read: ports, where DynamoDB is, the local authorizer cache. */
export const LocalEnvSchema = v.object({
  PORT: port('3000'),
  STAGING_PORT: port('3001'),
  HOST: v.optional(v.string(), '127.0.0.1'),
  DYNAMODB_ENDPOINT: optionalText(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
  DYNAMODB_PORT: port('8000'),
  DATA_DIR: v.optional(v.string(), '.data/dynamodb'),
  REQUEST_LOG: optionalText(v.picklist(['text', 'json', 'off'], 'REQUEST_LOG must be text, json or off')),
  /** API Gateway caches authorizer results per environment (60 s deployed); locally off unless set. */
  AUTHORIZER_CACHE_TTL: wholeNumber('0'),
  /** `off` for load benches, which would otherwise measure the modelled throttles. */
  GATEWAY_THROTTLES: v.optional(v.picklist(['on', 'off'], 'GATEWAY_THROTTLES must be on or off'), 'on'),
  /** Warm instances of each function (infra/local/instances.ts). */
  LAMBDA_INSTANCES: v.pipe(
    wholeNumber('1'),
    v.minValue(1, 'LAMBDA_INSTANCES must be at least 1'),
    v.maxValue(16, 'LAMBDA_INSTANCES must be at most 16'),
  ),
});
export type LocalEnv = v.InferOutput<typeof LocalEnvSchema>;

/** The local tooling's configuration, read when called (tests change variables between runs). */
export function localConfig(): LocalEnv {
  return parse(LocalEnvSchema, process.env, 'local env');
}

/**
 * The admin CLI's local DynamoDB (DYNAMODB_ENDPOINT, DYNAMODB_PORT, else `npm start`'s found by DATA_DIR, else port
 * 8000) and table prefix, read when called; empty counts as unset.
 */
export function adminCliConfig(source: Record<string, string | undefined> = process.env): {
  dynamoEndpoint: string;
  endpointFrom: 'DYNAMODB_ENDPOINT' | 'DYNAMODB_PORT' | 'default';
  dataDir: string;
  tablePrefix: string;
} {
  const schema = v.object({
    DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
    DYNAMODB_PORT: v.optional(v.pipe(v.string(), v.regex(/^\d{1,5}$/, 'DYNAMODB_PORT must be a port number'))),
    DATA_DIR: v.optional(v.string(), '.data/dynamodb'),
    PETSTORE_TABLE_PREFIX: v.optional(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]*$/, 'PETSTORE_TABLE_PREFIX may hold only letters, digits, "_", "." and "-"')),
      'petstore-',
    ),
  });
  const result = v.safeParse(schema, {
    DYNAMODB_ENDPOINT: source.DYNAMODB_ENDPOINT || undefined,
    DYNAMODB_PORT: source.DYNAMODB_PORT || undefined,
    DATA_DIR: source.DATA_DIR || undefined,
    PETSTORE_TABLE_PREFIX: source.PETSTORE_TABLE_PREFIX,
  });
  if (!result.success) throw new Error(`Invalid configuration: ${result.issues.map((i) => i.message).join('; ')}`);
  const { DYNAMODB_ENDPOINT, DYNAMODB_PORT, DATA_DIR, PETSTORE_TABLE_PREFIX } = result.output;
  const [dynamoEndpoint, endpointFrom] = DYNAMODB_ENDPOINT
    ? ([DYNAMODB_ENDPOINT, 'DYNAMODB_ENDPOINT'] as const)
    : DYNAMODB_PORT
      ? ([`http://127.0.0.1:${DYNAMODB_PORT}`, 'DYNAMODB_PORT'] as const)
      : (['http://127.0.0.1:8000', 'default'] as const);
  return { dynamoEndpoint, endpointFrom, dataDir: DATA_DIR, tablePrefix: PETSTORE_TABLE_PREFIX };
}
