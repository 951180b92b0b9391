/**
 * The whole runtime configuration, and the only module that reads process.env. Two valibot schemas: the
 * functions' (parsed on first use, which on Lambda is the cold start, since every function builds its stores at
 * module scope, so a missing or malformed variable fails the cold start, never a request), and the local
 * tooling's (the local gateway, `npm start`). Parsing on first use rather than at import lets tooling such as the
 * OpenAPI writer import modules that never need a STAGE.
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

/**
 * Variables that override a deprecated operation's dates and documentation link on a stage. Each deprecated route
 * names its own (lib/routes.ts, `deprecation.overrides`), so that one operation's dates never become another's; a
 * second deprecated operation adds its variables here, and the stack sets them on its function alone.
 */
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
  /** How many categories one customer may hold (lib/categories/store.ts); up to the environment's cap. */
  CATEGORY_ALLOWANCE: v.pipe(
    wholeNumber(String(CATEGORY_ALLOWANCE_DEFAULT)),
    v.minValue(1, 'CATEGORY_ALLOWANCE must be at least 1'),
    v.maxValue(CATEGORY_CAP, `CATEGORY_ALLOWANCE must be at most ${CATEGORY_CAP}, the environment's cap`),
  ),
  /** Days a customer's daily usage is kept after the day ends (lib/usage/history.ts). */
  USAGE_RETENTION_DAYS: v.pipe(wholeNumber('400'), v.minValue(1, 'USAGE_RETENTION_DAYS must be at least 1')),
  ...DOCS_URL_VARIABLES,
  ...DEPRECATION_DATE_VARIABLES,
});
export type Env = v.InferOutput<typeof EnvSchema>;
/** The names of the functions' variables: the CDK stack sets them by these names, checked by the compiler. */
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

/** The functions' configuration, parsed from process.env on first use. */
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

/**
 * A table name a module needs. Each store is built with this at its function's load, so a function fails its
 * cold start when it lacks a table it uses, yet is never handed the names of tables it does not use.
 */
export function tableName(variable: TableVariable): string {
  const name = config()[variable];
  if (!name) throw new Error(`Invalid configuration: ${variable} is not set`);
  return name;
}

/** Where the code runs: Lambda sets AWS_LAMBDA_FUNCTION_NAME in every function's environment. */
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
  /** `npm start`'s line per request (infra/local/request-line.ts): text on a terminal, JSON otherwise, unless set. */
  REQUEST_LOG: optionalText(v.picklist(['text', 'json', 'off'], 'REQUEST_LOG must be text, json or off')),
  /** API Gateway caches authorizer results per environment (60 s deployed); locally off unless set. */
  AUTHORIZER_CACHE_TTL: wholeNumber('0'),
  /**
   * Warm instances of each function behind the local gateway (infra/local/instances.ts): 1 runs every function in the
   * gateway's process; more run each function as that many worker threads, each with its own module state.
   */
  /**
   * Whether the local gateway models WAF's rate rules and API Gateway's throttles with cdk.json's figures
   * (infra/local/throttles.ts); `off` for load benches, which would otherwise measure the throttles.
   */
  GATEWAY_THROTTLES: v.optional(v.picklist(['on', 'off'], 'GATEWAY_THROTTLES must be on or off'), 'on'),
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
 * What the admin CLI takes from the environment in local mode: the DynamoDB to write to (DYNAMODB_ENDPOINT, or
 * DynamoDB Local on DYNAMODB_PORT, else the one `npm start` runs with DATA_DIR, lib/cli/running-start.ts, else port
 * 8000) and the local table prefix. Read when called rather than at load, because the CLI runs as a tool without the
 * functions' variables and chooses its stage with --stage; an empty variable counts as unset.
 */
export function adminCliConfig(source: Record<string, string | undefined> = process.env): {
  dynamoEndpoint: string;
  /** Which variable named the endpoint; `default` when neither did. */
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
