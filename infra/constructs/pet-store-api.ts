/**
 * The REST API of one environment: stage v1, the API-key authorizer on every method, one function per operation of
 * the route table (with exactly the tables it declares), gateway responses in the contract's Error shape, JSON
 * access logs, X-Ray, detailed metrics and a stage-wide throttle. Adding an operation to ROUTES adds its route,
 * function and grants here without touching this file.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  BasePathMapping,
  DomainName,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { TableId } from '../../lib/dynamo/tables.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { GATEWAY_RATE_LIMIT_HEADERS, GATEWAY_RESPONSES, type GatewayResponseSpec } from '../../lib/http/gateway-responses.js';
import { type Access, ROUTES, type Route } from '../../lib/routes.js';
import { API_STAGE_NAME, type Stage } from '../../lib/stacks.js';
import type { StageSettings } from '../config.js';
import { ApiFunction } from './api-function.js';
import { AUTHORIZER_TABLES } from './table-access.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface PetStoreApiProps {
  readonly stage: Stage;
  readonly settings: StageSettings;
  readonly tables: Readonly<Record<TableId, ITable>>;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
}

/** `list-categories` → `ListCategories`, the construct id of an operation's function. */
export function constructIdOf(handler: string): string {
  return handler
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export class PetStoreApi extends Construct {
  readonly api: RestApi;
  readonly authorizerFunction: ApiFunction;
  /** Keyed by operationId. */
  readonly functions: Readonly<Record<string, ApiFunction>>;
  readonly accessLogGroup: LogGroup;
  /** The base URL clients use, ending in /v1 (no trailing slash). */
  readonly url: string;
  readonly domain?: DomainName;

  constructor(scope: Construct, id: string, props: PetStoreApiProps) {
    super(scope, id);
    const { stage, settings } = props;
    const functionDefaults = { logRetention: props.logRetention, logRemovalPolicy: props.logRemovalPolicy };

    this.authorizerFunction = new ApiFunction(this, 'Authorizer', {
      ...functionDefaults,
      entry: path.join(PROJECT_ROOT, 'functions', 'authorizer.ts'),
      description: `Pet Store ${stage}: checks the API key of every request`,
      environment: { STAGE: stage },
      // Every uncached request waits for it: room for the DynamoDB client's retries, yet a hung call fails fast.
      timeout: Duration.seconds(FUNCTION_SETTINGS.authorizerTimeoutSeconds),
    });
    bindTables(this.authorizerFunction, AUTHORIZER_TABLES, props.tables);

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.logRemovalPolicy });

    this.api = new RestApi(this, 'RestApi', {
      restApiName: `petstore-${stage}`,
      description: `Pet Store API (${stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      // The account-wide role API Gateway needs to write execution logs. Both stacks may set it in one account;
      // RETAIN keeps deleting one stack from breaking the other's logging.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: API_STAGE_NAME,
        throttlingRateLimit: settings.throttleRateLimit,
        throttlingBurstLimit: settings.throttleBurstLimit,
        tracingEnabled: true,
        metricsEnabled: true,
        // Execution logs at ERROR only, and never data traces: those would log the Authorization header.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
      defaultMethodOptions: {
        authorizationType: AuthorizationType.CUSTOM,
        authorizer: new RequestAuthorizer(this, 'ApiKeyAuthorizer', {
          authorizerName: `petstore-${stage}-api-key`,
          handler: this.authorizerFunction,
          identitySources: [IdentitySource.header('Authorization')],
          resultsCacheTtl: Duration.seconds(settings.authorizerCacheTtlSeconds),
        }),
      },
    });

    // RestApi's own URL output ends in "/v1/"; ApiUrl (stack outputs) is the one clients and the CLI read.
    this.api.node.tryRemoveChild('Endpoint');

    const environment: Record<string, string> = {
      STAGE: stage,
      BAN_SECONDS: String(settings.banSeconds),
      PETS_DEPRECATED_AT: settings.petsDeprecatedAt,
      PETS_SUNSET_AT: settings.petsSunsetAt,
      DOCS_URL: settings.docsUrl,
    };
    const functions: Record<string, ApiFunction> = {};
    for (const route of ROUTES as readonly Route[]) {
      const fn = new ApiFunction(this, constructIdOf(route.handler), {
        ...functionDefaults,
        entry: path.join(PROJECT_ROOT, 'functions', `${route.handler}.ts`),
        description: `Pet Store ${stage}: ${route.operationId} (${route.method} ${route.path})`,
        environment,
      });
      bindTables(fn, route.tables, props.tables);
      // allowTestInvoke: false, so the only principal that may invoke an operation is this stage's API.
      this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new LambdaIntegration(fn, { allowTestInvoke: false }), { operationName: route.operationId });
      functions[route.operationId] = fn;
    }
    this.functions = functions;

    for (const [type, spec] of Object.entries(GATEWAY_RESPONSES) as [string, GatewayResponseSpec][]) {
      this.api.addGatewayResponse(`Response${constructIdOf(type.toLowerCase().replaceAll('_', '-'))}`, {
        type: ResponseType.of(type),
        statusCode: String(spec.status),
        responseHeaders: gatewayResponseHeaders(spec),
        templates: { 'application/json': gatewayResponseTemplate(spec, AUTHORIZER_MESSAGE_TYPES.has(type)) },
      });
    }

    const stageUrl = `https://${this.api.restApiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/${API_STAGE_NAME}`;
    if (settings.domainName && settings.certificateArn) {
      this.domain = new DomainName(this, 'Domain', {
        domainName: settings.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', settings.certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      // Mapped under /v1 so the custom base URL ends in /v1 like the execute-api one.
      new BasePathMapping(this, 'V1Mapping', {
        domainName: this.domain,
        restApi: this.api,
        stage: this.api.deploymentStage,
        basePath: API_STAGE_NAME,
      });
      this.url = `https://${settings.domainName}/${API_STAGE_NAME}`;
    } else {
      this.url = stageUrl;
    }
  }
}

function bindTables(fn: ApiFunction, uses: Partial<Record<TableId, Access>>, tables: Readonly<Record<TableId, ITable>>): void {
  for (const [id, access] of Object.entries(uses) as [TableId, Access][]) fn.bindTable(id, tables[id], access);
}

/**
 * One JSON object per request. Numbers API Gateway always fills are unquoted so metric filters can compare them;
 * fields that may be "-" stay strings. API Gateway does not escape variables, so nothing the client chooses freely
 * is logged (no user agent, no raw path: a quote in them could forge fields), and no header: never Authorization.
 */
const ACCESS_LOG_FORMAT = `{${[
  '"requestId":"$context.requestId"',
  '"extendedRequestId":"$context.extendedRequestId"',
  '"requestTime":"$context.requestTime"',
  '"ip":"$context.identity.sourceIp"',
  '"httpMethod":"$context.httpMethod"',
  '"resourcePath":"$context.resourcePath"',
  '"status":$context.status',
  '"responseLatency":$context.responseLatency',
  '"integrationLatency":"$context.integrationLatency"',
  '"responseLength":"$context.responseLength"',
  '"customerId":"$context.authorizer.customerId"',
  '"keyId":"$context.authorizer.keyId"',
  '"authorizerStatus":"$context.authorizer.status"',
  '"authorizerLatency":"$context.authorizer.latency"',
  '"authorizerError":"$context.authorizer.error"',
  '"errorType":"$context.error.responseType"',
  '"errorMessage":$context.error.messageString',
  '"xrayTraceId":"$context.xrayTraceId"',
].join(',')}}`;

/** Header values of a gateway response are mapping expressions: static strings in single quotes. */
export function gatewayResponseHeaders(spec: GatewayResponseSpec): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': "'application/json'",
    'X-Request-Id': 'context.requestId',
  };
  for (const [name, value] of Object.entries({ ...GATEWAY_RATE_LIMIT_HEADERS, ...spec.headers })) headers[name] = quoted(value);
  return headers;
}

/**
 * Responses whose message is the reason the authorizer put in its context: a refused key says why (wrong
 * environment, revoked, …). The static message in GATEWAY_RESPONSES is what the local gateway falls back to.
 */
export const AUTHORIZER_MESSAGE_TYPES: ReadonlySet<string> = new Set(['ACCESS_DENIED']);

/** Exactly `{"code":…,"message":…,"status":N}`. Gateway responses substitute $context variables but run no VTL. */
export function gatewayResponseTemplate(spec: GatewayResponseSpec, messageFromAuthorizer = false): string {
  // The authorizer promises a reason free of quotes and backslashes (see README, "Deploying to AWS").
  const message = messageFromAuthorizer ? '"$context.authorizer.message"' : staticJson(spec.message);
  return `{"code":${staticJson(spec.code)},"message":${message},"status":${spec.status}}`;
}

function staticJson(text: string): string {
  // A $ or # would be read as a template variable or directive.
  if (/[$#]/.test(text)) throw new Error(`Gateway response text must not contain $ or #: ${text}`);
  return JSON.stringify(text);
}

function quoted(value: string): string {
  if (value.includes("'")) throw new Error(`Gateway response header value must not contain a quote: ${value}`);
  return `'${value}'`;
}
