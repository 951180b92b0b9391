/**
 * How a new version of the functions reaches a stage's traffic: CodeDeploy moves each `live` alias to it in steps,
 * watching the new version's errors and the API's 5xx rate, either of which rolls it back. One application per stage,
 * one deployment group per function and one service role: the layout SAM's DeploymentPreference creates.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type Alarm, type AlarmProps, ComparisonOperator, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { type ILambdaDeploymentConfig, LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { Stage } from '../../lib/stacks.js';
import { notifyingAlarm } from './alarm-topic.js';
import type { ApiFunction } from './api-function.js';

/** CodeDeploy's predefined configurations for Lambda, by their name after `CodeDeployDefault.Lambda`. */
export const DEPLOYMENT_CONFIGS = {
  AllAtOnce: LambdaDeploymentConfig.ALL_AT_ONCE,
  Canary10Percent5Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  Canary10Percent10Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_10MINUTES,
  Canary10Percent15Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_15MINUTES,
  Canary10Percent30Minutes: LambdaDeploymentConfig.CANARY_10PERCENT_30MINUTES,
  Linear10PercentEvery1Minute: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
  Linear10PercentEvery2Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_2MINUTES,
  Linear10PercentEvery3Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_3MINUTES,
  Linear10PercentEvery10Minutes: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_10MINUTES,
} as const satisfies Record<string, ILambdaDeploymentConfig>;
export type DeploymentConfigName = keyof typeof DEPLOYMENT_CONFIGS;

/** When a deployment is rolled back; one-minute periods, so that an alarm can fire inside a 5-minute canary. */
export const ROLLOUT_ALARM_THRESHOLDS = {
  /** Failed invocations of the new version in a minute: functions answer their own errors, so one is a crash. */
  newVersionErrors: 1,
  /** Per cent of the API's requests answered 5xx in 2 of 3 minutes: a canary failing a tenth at 10 % crosses it. */
  serverErrorPercent: 1,
  /** Below this many requests in a minute the 5xx rate is not judged: one failure of three requests is noise. */
  minRequestsPerMinute: 10,
} as const;

const ROLLOUT_PERIOD = Duration.minutes(1);

export interface GradualDeploymentProps {
  readonly stage: Stage;
  readonly api: RestApi;
  /** Every function behind the API, the authorizer included; each is deployed through its `live` alias. */
  readonly functions: readonly ApiFunction[];
  readonly deploymentConfig: DeploymentConfigName;
  /** Whether an alarm rolls a deployment back; off, the alarms still notify. @default true */
  readonly rollbackOnAlarm?: boolean;
  /** Where the rollout alarms notify (the stage's alarm destinations). @default - no one; CodeDeploy still acts on them */
  readonly alarmTopics?: readonly ITopic[];
}

export class GradualDeployment extends Construct {
  readonly application: LambdaApplication;
  readonly role: Role;
  readonly serverErrorAlarm: Alarm;
  readonly newVersionErrorAlarms: Readonly<Record<string, Alarm>>;

  constructor(scope: Construct, id: string, props: GradualDeploymentProps) {
    super(scope, id);
    const { stage, api } = props;
    const deploymentConfig = DEPLOYMENT_CONFIGS[props.deploymentConfig];

    // Named, because an operator finds a deployment in the CodeDeploy console by application and group.
    this.application = new LambdaApplication(this, 'Application', { applicationName: `petstore-${stage}` });
    this.role = new Role(this, 'ServiceRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: `CodeDeploy shifting the live aliases of Pet Store ${stage} between versions and reading its rollout alarms`,
    });

    // A deployment that starts while one of its alarms is in ALARM stops at once: the OK notice says a redeploy may start.
    const alarmOn = (alarmId: string, alarm: AlarmProps) => notifyingAlarm(this, alarmId, props.alarmTopics ?? [], alarm);

    const requests = api.metricCount({ period: ROLLOUT_PERIOD, statistic: 'Sum' });
    const serverErrors = api.metricServerError({ period: ROLLOUT_PERIOD, statistic: 'Sum' });
    this.serverErrorAlarm = alarmOn('ServerErrorRate', {
      alarmName: `petstore-${stage}-rollout-5xx`,
      alarmDescription:
        `Pet Store ${stage}: more than ${ROLLOUT_ALARM_THRESHOLDS.serverErrorPercent}% of requests answered 5xx in 2 of 3 minutes. ` +
        'Stops and rolls back every CodeDeploy deployment of the stage in progress.',
      metric: new MathExpression({
        expression: `IF(requests >= ${ROLLOUT_ALARM_THRESHOLDS.minRequestsPerMinute}, 100 * errors / requests, 0)`,
        usingMetrics: { requests, errors: serverErrors },
        period: ROLLOUT_PERIOD,
        label: '5xx % (1 minute)',
      }),
      threshold: ROLLOUT_ALARM_THRESHOLDS.serverErrorPercent,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });

    const errorAlarms: Record<string, Alarm> = {};
    for (const fn of props.functions) {
      const name = fn.node.id;
      if (name in errorAlarms) throw new Error(`Two functions named ${name}: deployment group names must be unique in petstore-${stage}`);
      const { live } = fn;
      // Lambda adds ExecutedVersion to the metrics of invocations through an alias; spelled out, as CDK's
      // Version#metric names a Resource Lambda never publishes.
      const newVersionErrors = new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Errors',
        dimensionsMap: {
          FunctionName: fn.functionName,
          Resource: `${fn.functionName}:${live.aliasName}`,
          ExecutedVersion: live.version.version,
        },
        period: ROLLOUT_PERIOD,
        statistic: 'Sum',
        label: `${name} errors of the new version`,
      });
      const errorAlarm = alarmOn(`${name}NewVersionErrors`, {
        alarmName: `petstore-${stage}-rollout-${name}-errors`,
        alarmDescription:
          `Pet Store ${stage}: the version of ${name} being deployed failed invocations (a crash, a timeout or a failed cold start). ` +
          `Stops and rolls back its CodeDeploy deployment.`,
        metric: newVersionErrors,
        threshold: ROLLOUT_ALARM_THRESHOLDS.newVersionErrors,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      });
      const group = new LambdaDeploymentGroup(this, name, {
        application: this.application,
        deploymentGroupName: name,
        alias: live,
        deploymentConfig,
        role: this.role,
        alarms: [errorAlarm, this.serverErrorAlarm],
        ignoreAlarmConfiguration: props.rollbackOnAlarm === false,
        // A deployment an operator stops is rolled back too, so "stop" never leaves the alias split between versions.
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      // The alias (and the deployment) waits for its group and alarms: CloudFormation does not order by update policies.
      live.node.addDependency(group);
      errorAlarms[name] = errorAlarm;
    }
    this.newVersionErrorAlarms = errorAlarms;
  }
}
