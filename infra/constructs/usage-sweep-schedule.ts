/**
 * The usage sweep: its function (functions/usage-sweep.ts), which moves finished days from the counter items to the
 * usage history, the hourly EventBridge schedule that runs it, and its alarms. No route, no client reaches it.
 */
import path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { type Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { FunctionEnvironment } from '../../lib/config.js';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import type { Stage } from '../../lib/stacks.js';
import { notifyingAlarm } from './alarm-topic.js';
import { ApiFunction, type FunctionLogProps, PROJECT_ROOT } from './api-function.js';
import { USAGE_SWEEP_ACTIONS } from './table-access.js';

export interface UsageSweepProps extends FunctionLogProps {
  readonly stage: Stage;
  readonly counters: ITable;
  /** Days a day's totals are kept (USAGE_RETENTION_DAYS): the TTL the sweep gives the history items. */
  readonly usageRetentionDays: number;
  readonly alarmTopics: readonly ITopic[];
}

export class UsageSweep extends Construct {
  readonly handlerFunction: ApiFunction;
  readonly schedule: Rule;
  /** A failed run in an hour; no run started for three hours. */
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: UsageSweepProps) {
    super(scope, id);
    const { stage } = props;
    this.handlerFunction = new ApiFunction(this, 'Function', {
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      entry: path.join(PROJECT_ROOT, 'functions', 'usage-sweep.ts'),
      description: `Pet Store ${stage}: moves finished days of usage from the counter items to the usage history`,
      environment: { STAGE: stage, USAGE_RETENTION_DAYS: String(props.usageRetentionDays) } satisfies FunctionEnvironment,
      // The run stops starting work usageSweepReserveSeconds before this; the next hourly run goes on from there.
      timeout: Duration.seconds(FUNCTION_SETTINGS.usageSweepTimeoutSeconds),
    });
    this.handlerFunction.bindTableActions('counters', props.counters, USAGE_SWEEP_ACTIONS);
    this.schedule = new Rule(this, 'Schedule', {
      description: `Pet Store ${stage}: runs the usage sweep every hour`,
      schedule: Schedule.cron({ minute: String(FUNCTION_SETTINGS.usageSweepMinute) }),
      targets: [
        // EventBridge retries the hand-over twice within the hour (RetryPolicy, EventBridge API reference); "By default,
        // Lambda retries an asynchronous invocation twice if the function returns an error" (AWS::Lambda::EventInvokeConfig).
        new LambdaFunction(this.handlerFunction.live, { retryAttempts: 2, maxEventAge: Duration.hours(1) }),
      ],
    });

    const fn = this.handlerFunction;
    const hour = Duration.hours(1);
    this.alarms = [
      notifyingAlarm(this, 'Errors', props.alarmTopics, {
        alarmDescription:
          `Pet Store ${stage}: the usage sweep failed; finished days stay on the counter items (usage reads stay right) ` +
          'until a run succeeds: see its log group',
        metric: fn.metricErrors({ period: hour, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      notifyingAlarm(this, 'NotRunning', props.alarmTopics, {
        alarmDescription: `Pet Store ${stage}: the usage sweep has not run for 3 hours: check its schedule (EventBridge rule)`,
        metric: fn.metricInvocations({ period: hour, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 3,
        // Lambda publishes no Invocations for an hour without one: that silence is what this alarm is for.
        treatMissingData: TreatMissingData.BREACHING,
      }),
    ];
  }
}
