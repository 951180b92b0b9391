/** What an operator looks at and what wakes them: one dashboard per environment and alarms on what clients feel. */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  type AlarmProps,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { TableId } from '../../lib/dynamo/tables.js';
import { DECISION_DIMENSIONS, DECISION_METRICS, metricsNamespace } from '../../lib/metric-names.js';
import { PLAN_NAMES } from '../../lib/plans.js';
import { ROUTES } from '../../lib/routes.js';
import { API_STAGE_NAME } from '../../lib/stacks.js';
import { type AlarmTopicProps, alarmTopic, notifyingAlarm } from './alarm-topic.js';

export interface MonitoringProps extends AlarmTopicProps {
  readonly api: RestApi;
  readonly accessLogGroup: ILogGroup;
  readonly authorizerFunction: IFunction;
  /** Every function of the stage, the authorizer included: a throttle of any of them refuses a client. */
  readonly functions: readonly IFunction[];
  readonly tables: Readonly<Record<TableId, ITable>>;
}

const PERIOD = Duration.minutes(5);

/** Alarm thresholds, chosen so one bad request in a quiet hour does not page anyone. */
export const ALARM_THRESHOLDS = {
  /** Per cent of requests answered 5xx, over at least 20 requests in 5 minutes, in 2 of 3 periods. */
  serverErrorPercent: 1,
  /** p99 of API Gateway's latency in ms for 15 minutes; DynamoDB answers in single-digit ms, cold starts in ~1 s. */
  p99LatencyMs: 2000,
  /** Throttled DynamoDB requests in each of two consecutive 5-minute periods: on-demand capacity is not keeping up. */
  dynamoThrottles: 1,
  /** Throttled invocations of any function in 5 minutes: each is a request API Gateway answered 500, so one is enough. */
  lambdaThrottles: 1,
} as const;

/**
 * The sum of metrics published only for periods with something to count: metric math drops a period any operand lacks,
 * so FILL(…, 0) counts a silent one as 0. CloudWatch takes at most 10 metrics in a metric-math alarm.
 */
function sumOfSparse(metrics: Record<string, IMetric>, label: string): MathExpression {
  const ids = Object.keys(metrics);
  if (ids.length > 10) throw new Error(`The alarm "${label}" would watch ${ids.length} metrics; CloudWatch allows 10`);
  return new MathExpression({
    expression: ids.map((metricId) => `FILL(${metricId}, 0)`).join(' + '),
    usingMetrics: metrics,
    period: PERIOD,
    label,
  });
}

export class Monitoring extends Construct {
  readonly topic: Topic;
  /** Where every alarm of the stage notifies: this stack's topic, and the operator's existing topic when one is set. */
  readonly destinations: readonly ITopic[];
  readonly dashboard: Dashboard;
  readonly alarms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { api, stage } = props;

    const alarms = alarmTopic(this, props);
    this.topic = alarms.topic;
    this.destinations = alarms.destinations;

    const requests = api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' });
    const clientErrors = api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' });
    const serverErrors = api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' });
    // API Gateway has no 429 metric; the access log has every final status, whoever answered.
    const tooMany = new MetricFilter(this, 'TooManyRequests', {
      logGroup: props.accessLogGroup,
      filterPattern: FilterPattern.numberValue('$.status', '=', 429),
      metricNamespace: `PetStore/${stage}`,
      metricName: 'Responses429',
      metricValue: '1',
      defaultValue: 0,
    }).metric({ period: PERIOD, statistic: 'Sum', label: '429' });

    const operationLatency = (statistic: string) =>
      ROUTES.map(
        (route) =>
          new Metric({
            namespace: 'AWS/ApiGateway',
            metricName: 'Latency',
            dimensionsMap: { ApiName: api.restApiName, Stage: API_STAGE_NAME, Method: route.method, Resource: route.path },
            period: PERIOD,
            statistic,
            label: `${route.operationId} ${statistic}`,
          }),
      );

    const throttleMetrics: Record<string, IMetric> = {};
    for (const [tableId, table] of Object.entries(props.tables)) {
      // The audit table is the admin CLI's alone, and the five others reach CloudWatch's limit of 10 metrics.
      if (tableId === 'audit') continue;
      throttleMetrics[`${tableId}Read`] = table.metric('ReadThrottleEvents', { period: PERIOD, statistic: 'Sum' });
      throttleMetrics[`${tableId}Write`] = table.metric('WriteThrottleEvents', { period: PERIOD, statistic: 'Sum' });
    }
    // DynamoDB publishes a throttle metric only for periods in which it throttled (sumOfSparse).
    const dynamoThrottles = sumOfSparse(throttleMetrics, 'DynamoDB throttled requests (all tables)');

    const serverErrorRate = new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period: PERIOD,
      label: '5xx %',
    });

    // Lambda publishes Throttles only for periods with invocations, as DynamoDB does its throttles.
    const functionThrottles = Object.fromEntries(
      props.functions.map((fn, i) => [`fn${i}`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
    );
    const lambdaThrottles = sumOfSparse(functionThrottles, 'Lambda throttled invocations (all functions)');

    const alarmOn = (alarmId: string, alarm: AlarmProps) => notifyingAlarm(this, alarmId, this.destinations, alarm);
    this.alarms = [
      alarmOn('ServerErrorRate', {
        alarmDescription: `Pet Store ${stage}: more than ${ALARM_THRESHOLDS.serverErrorPercent}% of requests answered 5xx`,
        metric: serverErrorRate,
        threshold: ALARM_THRESHOLDS.serverErrorPercent,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
      }),
      alarmOn('LatencyP99', {
        alarmDescription: `Pet Store ${stage}: p99 latency above ${ALARM_THRESHOLDS.p99LatencyMs} ms`,
        metric: api.metricLatency({ period: PERIOD, statistic: 'p99' }),
        threshold: ALARM_THRESHOLDS.p99LatencyMs,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
      }),
      alarmOn('DynamoDbThrottling', {
        alarmDescription: `Pet Store ${stage}: DynamoDB is throttling requests (callers see 503 after retries)`,
        metric: dynamoThrottles,
        threshold: ALARM_THRESHOLDS.dynamoThrottles,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 2,
      }),
      alarmOn('LambdaThrottles', {
        alarmDescription: `Pet Store ${stage}: Lambda throttled a function (callers see 500): check reserved and account concurrency`,
        metric: lambdaThrottles,
        threshold: ALARM_THRESHOLDS.lambdaThrottles,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
      }),
    ];

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `PetStore-${stage}`, defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Pet Store ${stage}\nStage \`${API_STAGE_NAME}\`; alarms notify the SNS topic of this stack.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Requests, 4xx and 5xx', left: [requests], right: [clientErrors, serverErrors], width: 12 }),
      new GraphWidget({ title: '429 Too Many Requests (plan limits, bans, stage throttle)', left: [tooMany], width: 12 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Latency p50 per operation (ms)', left: operationLatency('p50'), width: 12 }),
      new GraphWidget({ title: 'Latency p99 per operation (ms)', left: operationLatency('p99'), width: 12 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Authorizer errors and throttles',
        left: [
          props.authorizerFunction.metricErrors({ period: PERIOD, statistic: 'Sum', label: 'errors' }),
          props.authorizerFunction.metricThrottles({ period: PERIOD, statistic: 'Sum', label: 'throttles' }),
        ],
        width: 12,
      }),
      new GraphWidget({ title: 'DynamoDB and Lambda throttled requests', left: [dynamoThrottles, lambdaThrottles], width: 12 }),
    );

    // The rate limiter's decisions, from the functions' EMF lines (lib/metrics.ts). SEARCH finds every
    // operation-and-plan series; SUM over a filtered search adds them up per plan or per operation.
    const schema = `{${metricsNamespace(stage)},${DECISION_DIMENSIONS.join(',')}}`;
    const search = (metricName: string, filter = '') =>
      `SEARCH('${schema} MetricName="${metricName}"${filter}', 'Sum', ${PERIOD.toSeconds()})`;
    const total = (metricName: string, dimension: string, value: string) =>
      new MathExpression({ expression: `SUM(${search(metricName, ` ${dimension}="${value}"`)})`, label: value, period: PERIOD });
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Admitted requests per plan',
        left: PLAN_NAMES.map((plan) => total(DECISION_METRICS.admitted, 'plan', plan)),
        width: 8,
      }),
      new GraphWidget({
        title: 'Admitted requests per operation',
        left: ROUTES.filter((r) => r.quota === 'consume').map((r) => total(DECISION_METRICS.admitted, 'operation', r.operationId)),
        width: 8,
      }),
      new GraphWidget({
        title: 'Refused requests (429) per operation and plan',
        left: [
          new MathExpression({ expression: search(DECISION_METRICS.limit), label: 'rate limited', period: PERIOD }),
          new MathExpression({ expression: search(DECISION_METRICS.banned), label: 'banned', period: PERIOD }),
        ],
        width: 8,
      }),
    );
  }
}
