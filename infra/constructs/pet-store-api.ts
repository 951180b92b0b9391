/**
 * The REST API of one environment: stage v1 with its logs, X-Ray, metrics and throttle; the API-key authorizer; one
 * function per route; gateway responses in the contract's Error shape; usage plans; optionally a custom domain.
 */
import { type Duration, Fn, Stack } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { BINARY_MEDIA_TYPES } from '../../lib/api-gateway/binary-media-types.js';
import type { TableId } from '../../lib/dynamo/tables.js';
import { ROUTES } from '../../lib/routes.js';
import { API_STAGE_NAME, type Stage } from '../../lib/stacks.js';
import { USAGE_PLANS } from '../../lib/usage-plans.js';
import { ACCESS_LOG_FORMAT } from './access-log-format.js';
import type { ApiFunction, FunctionConcurrencyProps, FunctionLogProps } from './api-function.js';
import { ApiKeyAuthorizer } from './api-key-authorizer.js';
import { constructIdOf } from './construct-id.js';
import { CustomDomain } from './custom-domain.js';
import { addGatewayResponses } from './gateway-responses.js';
import { OperationFunction, type OperationSettings } from './operation-function.js';

export interface PetStoreApiProps extends FunctionLogProps, FunctionConcurrencyProps {
  readonly stage: Stage;
  readonly tables: Readonly<Record<TableId, ITable>>;
  /** How long API Gateway caches an authorizer decision; revocations take effect within it. */
  readonly authorizerCacheTtl: Duration;
  readonly authorizerProvisionedConcurrency?: number;
  /** The stage-wide backstop, far above any plan: requests per second and burst. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly operations: OperationSettings;
  /** Whether every method requires the usage plan key the authorizer names (docs/deploying.md, "Isolation"). */
  readonly requireGatewayKey: boolean;
  /** @default - none: clients use the execute-api URL */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
}

export class PetStoreApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: ApiKeyAuthorizer;
  readonly authorizerFunction: ApiFunction;
  /** Keyed by operationId. */
  readonly functions: Readonly<Record<string, OperationFunction>>;
  /** The authorizer's function and every operation's: what a release deploys. */
  readonly allFunctions: readonly ApiFunction[];
  readonly accessLogGroup: LogGroup;
  /** Where API Gateway writes the stage's execution logs (its name is fixed by API Gateway). */
  readonly executionLogGroup: LogGroup;
  readonly url: string;
  readonly domain?: CustomDomain;
  /** The stage's usage plans (lib/usage-plans.ts), by their name within the stage. */
  readonly usagePlans: Readonly<Record<string, UsagePlan>>;

  constructor(scope: Construct, id: string, props: PetStoreApiProps) {
    super(scope, id);
    const { stage, logRetention, logRemovalPolicy, reservedConcurrency } = props;
    const logs = { logRetention, logRemovalPolicy, reservedConcurrency };

    this.authorizer = new ApiKeyAuthorizer(this, 'ApiKeyAuthorizer', {
      ...logs,
      stage,
      cacheTtl: props.authorizerCacheTtl,
      provisionedConcurrency: props.authorizerProvisionedConcurrency,
      tables: props.tables,
    });
    this.authorizerFunction = this.authorizer.handlerFunction;
    this.accessLogGroup = new LogGroup(this, 'AccessLogs', { retention: logRetention, removalPolicy: logRemovalPolicy });

    this.api = new RestApi(this, 'RestApi', {
      restApiName: `petstore-${stage}`,
      description: `Pet Store API (${stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      // Every request body reaches the functions as the client's bytes, so invalid UTF-8 is refused, not replaced.
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // The authorizer names each customer's usage plan key (usageIdentifierKey); clients never send one.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // The account-wide role execution logs need is set by a stack of its own (infra/api-gateway-account-stack.ts).
      cloudWatchRole: false,
      deployOptions: {
        stageName: API_STAGE_NAME,
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
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
        authorizer: this.authorizer,
        apiKeyRequired: props.requireGatewayKey,
      },
    });
    // RestApi's own URL output ends in "/v1/"; ApiUrl (stack outputs) is the one clients and the CLI read.
    this.api.node.tryRemoveChild('Endpoint');

    // API Gateway writes execution logs to a group of this fixed name, which it creates itself (kept forever) unless
    // it exists: so it is created here, before the stage.
    this.executionLogGroup = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: Fn.join('', ['API-Gateway-Execution-Logs_', this.api.restApiId, `/${API_STAGE_NAME}`]),
      retention: logRetention,
      removalPolicy: logRemovalPolicy,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogGroup);

    const functions: Record<string, OperationFunction> = {};
    for (const route of ROUTES) {
      const fn = new OperationFunction(this, constructIdOf(route.handler), {
        ...logs,
        stage,
        route,
        tables: props.tables,
        settings: props.operations,
      });
      fn.addMethodTo(this.api);
      functions[route.operationId] = fn;
    }
    this.functions = functions;
    this.allFunctions = [this.authorizerFunction, ...Object.values(functions)];

    addGatewayResponses(this.api);

    // A throttle per customer, applied before the stage's ("How throttling limit settings are applied in API Gateway").
    // No quota: the day's count is exact in DynamoDB, and AWS applies quotas on a best-effort basis.
    const usagePlans: Record<string, UsagePlan> = {};
    for (const plan of USAGE_PLANS)
      usagePlans[plan.name] = this.api.addUsagePlan(`UsagePlan${constructIdOf(plan.name)}`, {
        name: `petstore-${stage}-${plan.name}`,
        description: `Pet Store ${stage}: the gateway's throttle for customers of ${plan.perMinute} requests a minute or less`,
        throttle: { rateLimit: plan.rateLimit, burstLimit: plan.burstLimit },
        apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
      });
    this.usagePlans = usagePlans;

    // The stage moves to a new deployment only once every invoke permission exists: until then API Gateway answers 500.
    for (const permission of this.node.findAll().filter((child) => child instanceof CfnPermission))
      this.api.latestDeployment?.node.addDependency(permission);

    if (props.customDomain) {
      this.domain = new CustomDomain(this, 'Domain', { ...props.customDomain, api: this.api });
      this.url = this.domain.url;
    } else {
      this.url = `https://${this.api.restApiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/${API_STAGE_NAME}`;
    }
  }
}
