/**
 * Deployment settings of each environment from CDK context, in one valibot schema with defaults: `cdk.json`'s
 * `petstore.<stage>.<key>`, or `-c petstore:<stage>:<key>=value` (strings, coerced). An unknown key or stage is refused.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as v from 'valibot';
import { CATEGORY_ALLOWANCE_DEFAULT, CATEGORY_CAP } from '../lib/categories/limits.js';
import { DEPRECATION_DEFAULTS, sunsetProblem } from '../lib/deprecation.js';
import { STAGES, type Stage, THROTTLE_DEFAULTS } from '../lib/stacks.js';
import { ADDRESS_LIMIT_DEFAULT, addressNeedPer60s, KEYLESS_LIMIT_DEFAULT, LARGEST_FIXED_PLAN } from '../lib/usage-plans.js';
import { AddressListSchema } from './address-list.js';
import { didYouMean } from './closest-name.js';
import { DEPLOYMENT_CONFIGS, type DeploymentConfigName } from './constructs/gradual-deployment.js';

const wholeNumberIn = (min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number))], 'must be a whole number'),
    v.integer('must be a whole number'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const wholeNumber = (min: number, max: number, fallback: number) => v.optional(wholeNumberIn(min, max), fallback);

const TRUE_OR_FALSE = 'must be true or false';
const booleanText = v.pipe(
  v.picklist(['true', 'false'], TRUE_OR_FALSE),
  v.transform((s) => s === 'true'),
);
const flag = (fallback: boolean) => v.optional(v.union([v.boolean(), booleanText], TRUE_OR_FALSE), fallback);

const isoDate = (fallback: string) =>
  v.optional(v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp such as 2026-01-01T00:00:00Z')), fallback);

/** The retention periods CloudWatch Logs accepts, from CDK's enum of them (without "never expire"). */
const RETENTION_DAYS: readonly RetentionDays[] = Object.values(RetentionDays).filter(
  (days): days is RetentionDays => typeof days === 'number' && days !== RetentionDays.INFINITE,
);
const isRetentionDays = (days: number): days is RetentionDays => RETENTION_DAYS.some((allowed) => allowed === days);

const BUSINESS_NEED = addressNeedPer60s(LARGEST_FIXED_PLAN.perMinute);
const BUSINESS_NEED_MESSAGE = `must be at least ${BUSINESS_NEED}, what one address sends for a Business customer in 60 s at the window's edges`;
const DEPLOYMENT_CONFIG_NAMES = Object.keys(DEPLOYMENT_CONFIGS).filter((name): name is DeploymentConfigName => name in DEPLOYMENT_CONFIGS);

export const StageSettingsSchema = v.pipe(
  v.object({
    // Each key, its range and its default: docs/deploying.md's settings table (test/docs checks it against this schema).
    authorizerCacheTtlSeconds: wholeNumber(0, 3600, 60),
    banSeconds: wholeNumber(1, 86_400, 900),
    categoryAllowance: wholeNumber(1, CATEGORY_CAP, CATEGORY_ALLOWANCE_DEFAULT),
    usageRetentionDays: wholeNumber(1, 3653, 400),
    // Per method. The account's API Gateway quota (10,000 a second per region by default) must cover every stage's.
    throttleRateLimit: wholeNumber(1, 10_000, THROTTLE_DEFAULTS.rateLimit),
    throttleBurstLimit: wholeNumber(1, 5_000, THROTTLE_DEFAULTS.burstLimit),
    alarmEmail: v.optional(v.pipe(v.string(), v.email('must be an e-mail address'))),
    alarmTopicArn: v.optional(
      v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, 'must be the ARN of a standard SNS topic')),
    ),
    alarmOptOut: flag(false),
    reservedConcurrency: v.optional(wholeNumberIn(1, 10_000)),
    account: v.optional(v.pipe(v.string(), v.regex(/^\d{12}$/, 'must be a 12-digit AWS account id'))),
    region: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-west-1'))),
    domainName: v.optional(v.pipe(v.string(), v.regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/i, 'must be a domain name'))),
    certificateArn: v.optional(
      v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/, 'must be an ACM certificate ARN')),
    ),
    petsDeprecatedAt: isoDate(DEPRECATION_DEFAULTS.deprecatedAt),
    petsSunsetAt: isoDate(DEPRECATION_DEFAULTS.sunsetAt),
    docsUrl: v.optional(v.pipe(v.string(), v.url('must be a URL')), DEPRECATION_DEFAULTS.docsUrl),
    wafRateLimitPer5Minutes: wholeNumber(10, 2_000_000_000, KEYLESS_LIMIT_DEFAULT),
    wafRateLimitPerIp: v.pipe(wholeNumber(10, 2_000_000_000, ADDRESS_LIMIT_DEFAULT), v.minValue(BUSINESS_NEED, BUSINESS_NEED_MESSAGE)),
    wafAllowedAddresses: v.optional(AddressListSchema),
    requireGatewayKey: flag(true),
    logRetentionDays: v.pipe(wholeNumber(1, 3653, 90), v.guard(isRetentionDays, `must be one of ${RETENTION_DAYS.join(', ')}`)),
    deploymentConfig: v.optional(
      v.picklist(DEPLOYMENT_CONFIG_NAMES, `must be one of ${DEPLOYMENT_CONFIG_NAMES.join(', ')}`),
      'Canary10Percent5Minutes',
    ),
    authorizerProvisionedConcurrency: wholeNumber(0, 100, 0),
    rollbackOnAlarm: flag(true),
  }),
  v.check(
    (s) => (s.domainName === undefined) === (s.certificateArn === undefined),
    'domainName and certificateArn must be set together (or neither)',
  ),
  v.check(
    (s) => !s.alarmOptOut || (s.alarmEmail === undefined && s.alarmTopicArn === undefined),
    'alarmOptOut=true says there is no alarm destination, yet alarmEmail or alarmTopicArn is set: keep one or the other',
  ),
  // The rule the functions apply at cold start, checked here so a bad date fails `cdk synth` rather than every
  // cold start after a deploy.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = sunsetProblem(dataset.value.petsDeprecatedAt, dataset.value.petsSunsetAt);
    if (problem) addIssue({ message: `petsSunsetAt/petsDeprecatedAt: ${problem}` });
  }),
);
export type StageSettings = v.InferOutput<typeof StageSettingsSchema>;

/** The whole CDK context (`app.node.getAllContext()`); only `petstore` and `petstore:<stage>:<key>` are read here. */
export type Context = Readonly<Record<string, unknown>>;

const SETTING_KEYS = Object.keys(StageSettingsSchema.pipe[0].entries);

/** Settings an earlier version read, refused by name so that a cdk.json that still sets one is not silently ignored. */
const RETIRED_SETTINGS: Readonly<Record<string, string>> = {
  wafEnabled:
    'WAF is in front of every stage now (it answers bodies over 16 KiB with 413 before they reach a function, and bounds traffic without an API key): remove wafEnabled',
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStage = (name: string): name is Stage => STAGES.some((stage) => stage === name);
const OVERRIDE_FORM = 'a setting on the command line is -c petstore:<stage>:<key>=<value>';

function knownStage(name: string, where: string): Stage {
  if (isStage(name)) return name;
  throw new Error(`Invalid CDK context: unknown stage ${name} in ${where}${didYouMean(name, STAGES)}; the stages are ${STAGES.join(', ')}`);
}

/** Each stage's settings as `-c petstore:<stage>:<key>=value` (or such a key in cdk.json's context) gives them. */
function overridesByStage(context: Context): Record<Stage, Record<string, unknown>> {
  const overrides: Record<Stage, Record<string, unknown>> = { staging: {}, production: {} };
  for (const [contextKey, value] of Object.entries(context)) {
    if (contextKey === 'petstore' || !/^petstore/i.test(contextKey) || value === undefined) continue;
    const [, stage, key, ...rest] = contextKey.split(':');
    if (!contextKey.startsWith('petstore:') || stage === undefined || key === undefined || rest.length > 0)
      throw new Error(`Invalid CDK context: unknown key ${contextKey}; ${OVERRIDE_FORM}`);
    overrides[knownStage(stage, contextKey)][key] = value;
  }
  return overrides;
}

/** Each stage's object of settings in cdk.json (`petstore.<stage>`). */
function objectsByStage(context: Context): Record<Stage, Record<string, unknown>> {
  const objects: Record<Stage, Record<string, unknown>> = { staging: {}, production: {} };
  const root = context.petstore;
  if (root === undefined) return objects;
  if (!isRecord(root)) throw new Error(`Invalid CDK context: petstore in cdk.json must be an object with the settings of each stage`);
  for (const [name, settings] of Object.entries(root)) {
    const stage = knownStage(name, "cdk.json's petstore");
    if (!isRecord(settings)) throw new Error(`Invalid CDK context: petstore.${stage} in cdk.json must be an object of settings`);
    objects[stage] = settings;
  }
  return objects;
}

export function stageSettings(stage: Stage, context: Context): StageSettings {
  const fromJson = objectsByStage(context)[stage];
  const fromOptions = overridesByStage(context)[stage];
  for (const [key, why] of Object.entries(RETIRED_SETTINGS))
    if (key in fromJson || key in fromOptions) throw new Error(`Invalid CDK context for ${stage}: ${why}`);
  // A misspelled key would otherwise be dropped by the schema, and its default deployed without a word.
  const unknown = (key: string, named: string) =>
    SETTING_KEYS.includes(key) ? [] : [`unknown setting ${named}${didYouMean(key, SETTING_KEYS)}`];
  const problems = [
    ...Object.keys(fromJson).flatMap((key) => unknown(key, `petstore.${stage}.${key} in cdk.json`)),
    ...Object.keys(fromOptions).flatMap((key) => unknown(key, `petstore:${stage}:${key}`)),
  ];
  if (problems.length > 0)
    throw new Error(`Invalid CDK context for ${stage}: ${problems.join('; ')} (the settings: docs/deploying.md, "Settings (cdk.json)")`);
  const result = v.safeParse(StageSettingsSchema, { ...fromJson, ...fromOptions });
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? stage}: ${i.message}`).join('; ');
    throw new Error(`Invalid CDK context for ${stage} (petstore.${stage} in cdk.json or -c petstore:${stage}:<key>=...): ${problems}`);
  }
  return result.output;
}

/**
 * Account and region of one stage's stack: what its settings pin, else context `account`/`region`, else the CDK CLI's
 * defaults, else none (an environment-agnostic synth). The CLI sets CDK_DEFAULT_REGION always (us-east-1 by default)
 * but CDK_DEFAULT_ACCOUNT only with credentials, so its region counts only with its account: offline synths pin nothing.
 */
export function deploymentEnv(
  context: Context,
  processEnv: Readonly<Record<string, string | undefined>> = process.env,
  pinned: { readonly account?: string; readonly region?: string } = {},
): { account?: string; region?: string } {
  // An empty value (CDK_DEFAULT_ACCOUNT= in a shell) means unset, not an account called "".
  const pick = (...values: unknown[]) => values.map((value) => (value === undefined ? '' : String(value))).find((value) => value !== '');
  const cliAccount = pick(processEnv.CDK_DEFAULT_ACCOUNT);
  const account = pick(pinned.account, context.account, cliAccount);
  const region = pick(pinned.region, context.region, cliAccount === undefined ? undefined : processEnv.CDK_DEFAULT_REGION);
  if (account !== undefined && !/^\d{12}$/.test(account))
    throw new Error(`Invalid CDK context: account "${account}" is not a 12-digit AWS account id`);
  return { ...(account ? { account } : {}), ...(region ? { region } : {}) };
}
