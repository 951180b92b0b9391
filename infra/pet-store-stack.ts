/**
 * One environment of the Pet Store: tables, API (with its functions), monitoring and the gradual rollout of new
 * function versions. The stack only wires these constructs together; each concern lives in its construct.
 * Production and staging are two instances of it.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { TABLES } from '../lib/dynamo/tables.js';
import { API_URL_OUTPUT, type Stage, TABLE_OUTPUT_KEYS } from '../lib/stacks.js';
import type { StageSettings } from './config.js';
import { GradualDeployment } from './constructs/gradual-deployment.js';
import { Monitoring } from './constructs/monitoring.js';
import { PetStoreApi } from './constructs/pet-store-api.js';
import { PetStoreTables } from './constructs/tables.js';
import { WebAcl } from './constructs/web-acl.js';
import { acknowledgeFindings } from './nag-suppressions.js';

export interface PetStoreStackProps extends StackProps {
  readonly stage: Stage;
  readonly settings: StageSettings;
}

export class PetStoreStack extends Stack {
  readonly tables: PetStoreTables;
  readonly api: PetStoreApi;
  readonly monitoring: Monitoring;
  readonly rollout: GradualDeployment;
  readonly webAcl?: WebAcl;

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

    this.tables = new PetStoreTables(this, 'Tables', { retainData: production });
    const { domainName, certificateArn } = settings;
    this.api = new PetStoreApi(this, 'Api', {
      stage,
      tables: this.tables.tables,
      logRetention: settings.logRetentionDays,
      logRemovalPolicy: removalPolicy,
      authorizerCacheTtl: Duration.seconds(settings.authorizerCacheTtlSeconds),
      authorizerProvisionedConcurrency: settings.authorizerProvisionedConcurrency,
      throttle: { rateLimit: settings.throttleRateLimit, burstLimit: settings.throttleBurstLimit },
      operations: {
        banSeconds: settings.banSeconds,
        usageRetentionDays: settings.usageRetentionDays,
        categoryAllowance: settings.categoryAllowance,
        deprecation: { deprecatedAt: settings.petsDeprecatedAt, sunsetAt: settings.petsSunsetAt, docsUrl: settings.docsUrl },
      },
      customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      api: this.api.api,
      accessLogGroup: this.api.accessLogGroup,
      authorizerFunction: this.api.authorizerFunction,
      tables: this.tables.tables,
      alarmEmail: settings.alarmEmail,
    });
    this.rollout = new GradualDeployment(this, 'Rollout', {
      stage,
      api: this.api.api,
      functions: this.api.allFunctions,
      deploymentConfig: settings.deploymentConfig,
      rollbackOnAlarm: settings.rollbackOnAlarm,
      alarmTopic: this.monitoring.topic,
    });
    if (settings.wafEnabled) {
      this.webAcl = new WebAcl(this, 'WebAcl', {
        name: `petstore-${stage}`,
        stageArn: this.api.api.deploymentStage.stageArn,
        ratePer5Minutes: settings.wafRateLimitPer5Minutes,
      });
    }

    new CfnOutput(this, API_URL_OUTPUT, { value: this.api.url, description: 'Base URL of the API; ends in /v1' });
    for (const spec of TABLES) {
      new CfnOutput(this, TABLE_OUTPUT_KEYS[spec.id], {
        value: this.tables.tables[spec.id].tableName,
        description: `Name of the ${spec.id} table (${spec.envVar}); read by the admin CLI's --aws mode`,
      });
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'SNS topic the alarms notify' });
    if (this.api.domain) {
      new CfnOutput(this, 'CustomDomainTarget', {
        value: this.api.domain.domainNameAliasDomainName,
        description: `Point a CNAME or alias record for ${domainName} here`,
      });
    }

    acknowledgeFindings(this);
  }
}
