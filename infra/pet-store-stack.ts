/** One environment of the Pet Store: tables, API and functions, web ACL, monitoring, usage sweep and gradual rollout. */
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { TABLES } from '../lib/dynamo/tables.js';
import {
  ADDRESS_RATE_OUTPUT,
  API_URL_OUTPUT,
  type Stage,
  TABLE_OUTPUT_KEYS,
  THROTTLE_RATE_OUTPUT,
  USAGE_PLAN_IDS_OUTPUT,
} from '../lib/stacks.js';
import type { StageSettings } from './config.js';
import { GradualDeployment } from './constructs/gradual-deployment.js';
import { Monitoring } from './constructs/monitoring.js';
import { PetStoreApi } from './constructs/pet-store-api.js';
import { PetStoreTables } from './constructs/tables.js';
import { UsageSweep } from './constructs/usage-sweep-schedule.js';
import { WebAcl } from './constructs/web-acl.js';
import { acknowledgeFindings } from './nag-suppressions.js';

/**
 * Stages whose stack does not synthesize until the operator has decided where alarms go: an e-mail (alarmEmail), an
 * existing topic (alarmTopicArn), or none at all, said explicitly (alarmOptOut). Staging may run without one.
 */
export const ALARM_DESTINATION_REQUIRED: ReadonlySet<Stage> = new Set(['production']);

export interface PetStoreStackProps extends StackProps {
  readonly stage: Stage;
  readonly settings: StageSettings;
}

export class PetStoreStack extends Stack {
  readonly tables: PetStoreTables;
  readonly api: PetStoreApi;
  readonly monitoring: Monitoring;
  readonly rollout: GradualDeployment;
  readonly webAcl: WebAcl;
  readonly usageSweep: UsageSweep;

  constructor(scope: Construct, id: string, props: PetStoreStackProps) {
    const { stage, settings, ...stackProps } = props;
    const production = stage === 'production';
    super(scope, id, {
      description: `Pet Store API, ${stage}: REST API stage v1, API-key authorizer, one function per operation, DynamoDB`,
      terminationProtection: production,
      ...stackProps,
    });
    // Production keeps its data and logs whatever happens to the stack; staging can be torn down and rebuilt.
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // An error annotation, not an exception: `cdk synth` and `cdk deploy` of this stack fail with the message, while
    // `cdk deploy` of the other stack, which synthesizes this one too, goes ahead.
    const alarmDecided = settings.alarmEmail !== undefined || settings.alarmTopicArn !== undefined || settings.alarmOptOut;
    if (ALARM_DESTINATION_REQUIRED.has(stage) && !alarmDecided) {
      const key = (name: string) => `petstore.${stage}.${name}`;
      Annotations.of(this).addError(
        `The ${stage} stack has no alarm destination, so its alarms would reach nobody. Decide one in cdk.json (or with ` +
          `-c petstore:${stage}:<key>=<value>): ${key('alarmEmail')} (an address to e-mail; confirm the subscription AWS sends), ` +
          `${key('alarmTopicArn')} (an existing SNS topic, such as your pager's), or ${key('alarmOptOut')}=true to deploy without one.`,
      );
    }

    this.tables = new PetStoreTables(this, 'Tables', { retainData: production });
    const { domainName, certificateArn } = settings;
    this.api = new PetStoreApi(this, 'Api', {
      stage,
      tables: this.tables.tables,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: removalPolicy,
      reservedConcurrency: settings.reservedConcurrency,
      authorizerCacheTtl: Duration.seconds(settings.authorizerCacheTtlSeconds),
      authorizerProvisionedConcurrency: settings.authorizerProvisionedConcurrency,
      throttle: { rateLimit: settings.throttleRateLimit, burstLimit: settings.throttleBurstLimit },
      requireGatewayKey: settings.requireGatewayKey,
      operations: settings,
      customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      api: this.api.api,
      accessLogGroup: this.api.accessLogGroup,
      authorizerFunction: this.api.authorizerFunction,
      functions: this.api.allFunctions,
      tables: this.tables.tables,
      alarmEmail: settings.alarmEmail,
      alarmTopicArn: settings.alarmTopicArn,
    });
    this.usageSweep = new UsageSweep(this, 'UsageSweep', {
      stage,
      counters: this.tables.tables.counters,
      usageRetentionDays: settings.usageRetentionDays,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: removalPolicy,
      alarmTopics: this.monitoring.destinations,
    });
    this.webAcl = new WebAcl(this, 'WebAcl', {
      name: `petstore-${stage}`,
      stage,
      stageArn: this.api.api.deploymentStage.stageArn,
      ratePer5Minutes: settings.wafRateLimitPer5Minutes,
      ratePerIp: settings.wafRateLimitPerIp,
      allowedAddresses: settings.wafAllowedAddresses,
    });
    this.rollout = new GradualDeployment(this, 'Rollout', {
      stage,
      api: this.api.api,
      functions: this.api.allFunctions,
      deploymentConfig: settings.deploymentConfig,
      rollbackOnAlarm: settings.rollbackOnAlarm,
      alarmTopics: this.monitoring.destinations,
    });

    new CfnOutput(this, API_URL_OUTPUT, { value: this.api.url, description: 'Base URL of the API; ends in /v1' });
    for (const spec of TABLES)
      new CfnOutput(this, TABLE_OUTPUT_KEYS[spec.id], {
        value: this.tables.tables[spec.id].tableName,
        description: `Name of the ${spec.id} table (${spec.envVar}); read by the admin CLI's --aws mode`,
      });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'SNS topic the alarms notify' });
    new CfnOutput(this, THROTTLE_RATE_OUTPUT, {
      value: String(settings.throttleRateLimit),
      description:
        "The stage throttle in requests per second; the admin CLI's --aws mode sells no Enterprise limit above 60 times it a minute",
    });
    new CfnOutput(this, USAGE_PLAN_IDS_OUTPUT, {
      value: this.toJsonString(Object.fromEntries(Object.entries(this.api.usagePlans).map(([name, plan]) => [name, plan.usagePlanId]))),
      description: "The stage's usage plan ids by plan name (JSON); the admin CLI's --aws mode moves customers' gateway keys between them",
    });
    new CfnOutput(this, ADDRESS_RATE_OUTPUT, {
      value: String(settings.wafRateLimitPerIp),
      description: "Requests one address may send in 60 s (the web ACL's address-rate rule); the admin CLI warns when it sells more",
    });
    if (this.api.domain)
      new CfnOutput(this, 'CustomDomainTarget', {
        value: this.api.domain.domainNameAliasDomainName,
        description: `Point a CNAME or alias record for ${domainName} here`,
      });

    acknowledgeFindings(this);
  }
}
