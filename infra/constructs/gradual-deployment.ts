/**
 * How a new version of the functions reaches a stage's traffic. API Gateway invokes every function through its
 * `live` alias (ApiFunction); when a deploy publishes a new version, CloudFormation hands the alias update to
 * CodeDeploy, which moves the alias's traffic to the new version in the steps of the stage's deployment
 * configuration while it watches two alarms per function: errors of the new version, and the API's 5xx rate.
 * Either alarm stops the deployment and puts all traffic back on the previous version; CloudFormation then rolls
 * back the whole stack update. One CodeDeploy application per stage, one deployment group per function (CodeDeploy
 * deploys one alias per deployment, and a group runs one deployment at a time) and one service role: the layout
 * SAM's DeploymentPreference creates.
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

/**
 * CodeDeploy's predefined traffic-shifting configurations for Lambda, by the name CodeDeploy gives them after
 * `CodeDeployDefault.Lambda`: a canary moves 10 % of traffic, waits, then moves the rest; a linear one moves 10 %
 * per interval; AllAtOnce moves everything in one step (the alarms then have nothing left to protect).
 */
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

/**
 * When a deployment is stopped and rolled back. The periods are one minute, not the on-call alarms' five, so that
 * an alarm can fire inside a 5-minute canary; CodeDeploy watches the alarms only while it shifts traffic.
 */
export const ROLLOUT_ALARM_THRESHOLDS = {
  /**
   * Failed invocations of the new version in one minute. Operations answer their own errors (500 INTERNAL_ERROR,
   * 503 when DynamoDB fails) and the DynamoDB client's budget ends well inside the timeout, and the authorizer
   * refuses a key with a Deny policy, so a healthy version has none: an error is a crash, a timeout or a failed cold
   * start (a missing or bad setting), and one is enough to stop. (The authorizer also fails when DynamoDB does, so an
   * outage during its rollout rolls it back too: harmless, the previous version fails the same way.)
   */
  newVersionErrors: 1,
  /**
   * Per cent of all the API's requests answered 5xx, in 2 of 3 one-minute periods: a canary failing a tenth of its
   * requests at 10 % of traffic crosses it.
   */
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
  /** How traffic moves to a new version (cdk.json: `petstore.<stage>.deploymentConfig`). */
  readonly deploymentConfig: DeploymentConfigName;
  /**
   * Whether an alarm stops and rolls back a deployment. Off, CodeDeploy ignores the alarms (which still exist and
   * notify): for a fix deployed while the API already fails.
   * @default true
   */
  readonly rollbackOnAlarm?: boolean;
  /** Where the rollout alarms notify when they fire and when they clear (the stage's alarm destinations). @default - no one; CodeDeploy still acts on them */
  readonly alarmTopics?: readonly ITopic[];
}

export class GradualDeployment extends Construct {
  readonly application: LambdaApplication;
  /** CodeDeploy's service role, shared by every deployment group of the stage. */
  readonly role: Role;
  /** The API's 5xx rate over one-minute periods, watched by every deployment group. */
  readonly serverErrorAlarm: Alarm;
  /** Keyed by the function's construct id (ListCategories, Authorizer, …), as the deployment groups are named. */
  readonly deploymentGroups: Readonly<Record<string, LambdaDeploymentGroup>>;
  /** Errors of the version being deployed, per function; keyed like `deploymentGroups`. */
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

    const groups: Record<string, LambdaDeploymentGroup> = {};
    const errorAlarms: Record<string, Alarm> = {};
    for (const fn of props.functions) {
      const name = fn.node.id;
      if (name in groups) throw new Error(`Two functions named ${name}: deployment group names must be unique in petstore-${stage}`);
      const { live } = fn;
      // The alias's invocations that ran the version being deployed: Lambda adds ExecutedVersion to the metrics of
      // invocations through an alias. (CDK's Version#metric names the version's ARN as Resource, which Lambda never
      // publishes, so the metric is spelled out.) The dimension follows each release's new version.
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
      // The alias is updated (and the deployment started) only after its group and the group's alarms are: the
      // error alarm must already watch the new version. CloudFormation does not order by the update policy's refs.
      live.node.addDependency(group);
      groups[name] = group;
      errorAlarms[name] = errorAlarm;
    }
    this.deploymentGroups = groups;
    this.newVersionErrorAlarms = errorAlarms;
  }
}
