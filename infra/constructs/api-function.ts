/**
 * A Lambda function of the API with the project's defaults: the runtime, arm64, an ESM bundle with the AWS SDK inside,
 * JSON logs into its own log group, X-Ray, a role with nothing but that log group, and its `live` alias, which every
 * caller invokes; `bindTable` gives a table's name and its grant together.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLES, type TableId } from '../../lib/dynamo/tables.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { powertoolsEnvironment } from '../../lib/metric-names.js';
import type { Access } from '../../lib/routes.js';
import { separateModuleCommand, separateModuleFile } from './separate-modules.js';
import { actionsFor, type TableUses } from './table-access.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The Lambda runtime of every function; moving to a newer Node.js is this one line (esbuild's target follows it). */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;

/** esbuild's target for LAMBDA_RUNTIME: `nodejs24.x` → `node24`, so no syntax is lowered that the runtime has. */
export const BUNDLE_TARGET = LAMBDA_RUNTIME.name.replace(/^nodejs(\d+)\.x$/, 'node$1');

/**
 * Builtins are bundled as their CommonJS view (infra/bundling/node-*.cjs): on Node.js 24 an ESM import runs every lazy
 * getter of the namespace (measured on list-categories: undici and 25 more internal modules for http, 6 for the others).
 */
const BUNDLING_DIR = fileURLToPath(new URL('../bundling/', import.meta.url));
const CJS_VIEW_BUILTINS = ['http', 'https', 'process', 'fs', 'fs/promises', 'timers', 'crypto', 'stream/web'] as const;
export const BUILTIN_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  CJS_VIEW_BUILTINS.flatMap((name) => {
    const file = path.join(BUNDLING_DIR, `node-${name.replace('/', '-')}.cjs`);
    // esbuild matches an alias as a path prefix: `fs` would also take `fs/promises`, which has its own file here.
    return [name, `node:${name}`].map((alias) => [alias, file]);
  }),
);

export interface FunctionLogProps {
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

export interface FunctionConcurrencyProps {
  /** Concurrent executions reserved for (and capping) the function; AWS keeps 100 of the account's pool unreserved. */
  readonly reservedConcurrency?: number;
}

export interface ApiFunctionProps extends FunctionLogProps, FunctionConcurrencyProps {
  /** Absolute path of the handler module (exports `handler`). */
  readonly entry: string;
  /** Variables besides the table names, which `bindTable` adds (STAGE, BAN_SECONDS, …). */
  readonly environment: Readonly<Record<string, string>>;
  /** @default FUNCTION_SETTINGS.memoryMb (lib/function-settings.ts) */
  readonly memorySize?: number;
  /** @default FUNCTION_SETTINGS.operationTimeoutSeconds: below API Gateway's 29 s integration limit (lib/dynamo/budget.ts) */
  readonly timeout?: Duration;
  readonly description?: string;
  /** Environments Lambda keeps initialised for the `live` alias, billed whether used or not. @default 0: none */
  readonly provisionedConcurrency?: number;
  /** `.mts` modules (absolute paths) the function imports from files of their own (separate-modules.ts). @default none */
  readonly separateModules?: readonly string[];
}

/** The alias API Gateway invokes, and CodeDeploy moves from version to version. */
export const LIVE_ALIAS = 'live';

/**
 * Credential providers the SDK imports only when the environment holds no credentials, which Lambda always sets:
 * leaving them out takes about 140 KB (SSO, STS and sign-in clients) off every bundle.
 */
export const LAZY_CREDENTIAL_PROVIDERS = [
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/credential-provider-http',
  '@smithy/credential-provider-imds',
  '@aws-sdk/nested-clients',
  '@aws-sdk/token-providers',
] as const;

/**
 * SDK modules no DynamoDB operation loads (it has no event-stream member; a test checks every command). Bundled, they
 * cost about 20 KB and 3.5 ms of each cold start (`npm run bench -- --cold`): esbuild wrapped 160 shared modules lazily.
 */
export const UNUSED_SDK_MODULES = ['@smithy/core/event-streams'] as const;

export const BUNDLE_EXTERNALS: readonly string[] = [...LAZY_CREDENTIAL_PROVIDERS, ...UNUSED_SDK_MODULES];

const MAIN_FIELDS = ['module', 'main'] as const;

export class ApiFunction extends NodejsFunction {
  readonly logGroupRef: LogGroup;
  /** What every caller invokes: grants, integrations and authorizers take this, never the function. */
  readonly live: Alias;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    // The role and log group are made before the function so the role can be passed in: without it the function
    // would get the AWSLambdaBasicExecutionRole managed policy, which may write to every log group of the account.
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: its own log group, X-Ray, and only the DynamoDB actions its route declares`,
    });
    logGroup.grantWrite(role);

    const separateModules = props.separateModules ?? [];
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? FUNCTION_SETTINGS.memoryMb,
      timeout: props.timeout ?? Duration.seconds(FUNCTION_SETTINGS.operationTimeoutSeconds),
      reservedConcurrentExecutions: props.reservedConcurrency,
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      // INFO, not WARN: Lambda sends its START and REPORT lines (Duration, Max Memory Used, Init Duration) at INFO, and
      // drops them at WARN (AWS Lambda Developer Guide, "Log-level filtering"). The runbook reads them.
      systemLogLevelV2: SystemLogLevel.INFO,
      tracing: Tracing.ACTIVE,
      environment: { ...powertoolsEnvironment(props.environment), ...props.environment },
      // Old versions stay, so an operator can point the alias back by hand; not RETAIN: a version created by a deploy
      // that rolls back must go with it, or the next deploy of that release fails ("A version for this Lambda function
      // exists": PublishVersion publishes nothing unchanged).
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: [...MAIN_FIELDS],
        target: BUNDLE_TARGET,
        minify: true,
        // No source maps: every stack trace would parse a map of the whole bundled SDK. No keepNames: 16 KB of
        // wrappers per bundle, and the errors we log carry their own name and message.
        sourceMap: false,
        keepNames: false,
        bundleAwsSDK: true,
        externalModules: [...BUNDLE_EXTERNALS, ...separateModules.map(separateModuleFile)],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir, outputDir) =>
            separateModules.map((module) =>
              separateModuleCommand(module, outputDir, {
                target: BUNDLE_TARGET,
                mainFields: MAIN_FIELDS,
                externals: BUNDLE_EXTERNALS,
                aliases: BUILTIN_ALIASES,
              }),
            ),
        },
        // No createRequire banner: nothing bundled calls require() (the synth test fails if esbuild's "Dynamic
        // require" shim appears), and the banner's import of `module` cost each cold start about half a millisecond.
        esbuildArgs: Object.fromEntries(Object.entries(BUILTIN_ALIASES).map(([name, file]) => [`--alias:${name}`, file])),
        forceDockerBundling: false,
      },
    });
    this.logGroupRef = logGroup;
    // The version's hash is computed at synthesis, so variables bindTable adds after this still publish a new one.
    this.live = new Alias(this, 'Live', {
      aliasName: LIVE_ALIAS,
      version: this.currentVersion,
      // 0 means none: no ProvisionedConcurrencyConfig at all, rather than one of 0.
      provisionedConcurrentExecutions: props.provisionedConcurrency || undefined,
    });
  }

  /** Sets the table's environment variable and grants exactly the actions `access` means on the table itself. */
  bindTable(id: TableId, table: ITable, access: Access): void {
    this.bindTableActions(id, table, actionsFor(id, access));
  }

  bindTableActions(id: TableId, table: ITable, actions: readonly string[]): void {
    const spec = TABLES.find((t) => t.id === id);
    if (!spec) throw new Error(`Unknown table ${id}`);
    this.addEnvironment(spec.envVar, table.tableName);
    this.addToRolePolicy(new PolicyStatement({ actions: [...actions], resources: [table.tableArn] }));
  }

  bindTables(uses: TableUses, tables: Readonly<Record<TableId, ITable>>): void {
    for (const [name, access] of Object.entries(uses)) {
      const spec = TABLES.find((t) => t.id === name);
      if (!spec || !access) throw new Error(`Unknown table ${name}`);
      this.bindTable(spec.id, tables[spec.id], access);
    }
  }
}
