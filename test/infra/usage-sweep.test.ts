import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import { resourcesOfType, type TemplateJson } from '../support/cloudformation.js';
import { CDK_JSON_SETTINGS, logicalIdIn, perStage, synthApp } from './synth-app.js';

let app: ReturnType<typeof synthApp>;
let json: Record<Stage, TemplateJson>;

beforeAll(() => {
  app = synthApp();
  json = perStage((stage) => app.json(stage));
}, 120_000);

const logicalIdOf = (stage: Stage, construct: IConstruct | undefined) => logicalIdIn(app.stacks[stage], construct);
const resourcesOf = (stage: Stage, type: string) => resourcesOfType(json[stage], type);
const tableId = (stage: Stage, id: string) => logicalIdOf(stage, app.stacks[stage].tables.tables[id as 'counters']);

/** The statements of the sweep role's policies. */
function sweepStatements(stage: Stage): { Effect: string; Action: string | string[]; Resource: unknown }[] {
  const roleId = logicalIdOf(stage, app.stacks[stage].usageSweep.handlerFunction.role);
  return resourcesOf(stage, 'AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties?.Roles).includes(`"${roleId}"`))
    .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement);
}

describe.each(STAGES)('the %s usage sweep', (stage) => {
  const fnId = () => logicalIdOf(stage, app.stacks[stage].usageSweep.handlerFunction);
  const fn = () => json[stage].Resources[fnId()];

  it('is a function of its own, not a route: the counters table its only table, the stage and the retention its settings', () => {
    expect(fn()?.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: FUNCTION_SETTINGS.usageSweepTimeoutSeconds,
      TracingConfig: { Mode: 'Active' },
    });
    const variables = fn()?.Properties?.Environment?.Variables ?? {};
    expect(variables).toMatchObject({
      STAGE: stage,
      USAGE_RETENTION_DAYS: String(CDK_JSON_SETTINGS[stage].usageRetentionDays ?? 400),
      COUNTERS_TABLE: { Ref: tableId(stage, 'counters') },
    });
    const tableVariables = Object.keys(variables).filter((name) => name.endsWith('_TABLE'));
    expect(tableVariables).toEqual(['COUNTERS_TABLE']);
    // No API method integrates it.
    expect(JSON.stringify(resourcesOf(stage, 'AWS::ApiGateway::Method'))).not.toContain(fnId());
  });

  it('runs every hour at minute 10 (UTC) through its live alias, with two retries and events at most an hour old', () => {
    const aliasId = logicalIdOf(stage, app.stacks[stage].usageSweep.handlerFunction.live);
    const rules = resourcesOf(stage, 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const [ruleId, rule] = rules[0] ?? [];
    expect(rule?.Properties).toMatchObject({
      ScheduleExpression: `cron(${FUNCTION_SETTINGS.usageSweepMinute} * * * ? *)`,
      State: 'ENABLED',
      Targets: [{ Arn: { Ref: aliasId }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 } }],
    });
    // EventBridge may invoke the alias, for this rule only.
    const permissions = resourcesOf(stage, 'AWS::Lambda::Permission').filter(([, p]) => p.Properties?.Principal === 'events.amazonaws.com');
    expect(permissions).toHaveLength(1);
    expect(permissions[0]?.[1].Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      FunctionName: { Ref: aliasId },
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });

  it('may Scan, read and update the counters table, and nothing else of any table', () => {
    const statements = sweepStatements(stage);
    const actions = (statement: { Action: string | string[] }) => [statement.Action].flat();
    const dynamo = statements.filter((st) => actions(st).some((action) => action.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Scan', 'dynamodb:UpdateItem'],
        Resource: { 'Fn::GetAtt': [tableId(stage, 'counters'), 'Arn'] },
      },
    ]);
    // The rest: its own log group and X-Ray, as every function of the stack.
    const rest = statements
      .filter((st) => !dynamo.includes(st))
      .flatMap(actions)
      .sort();
    expect(rest).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it("writes its logs to a log group of its own, kept for the stage's retention", () => {
    const logGroupId = logicalIdOf(stage, app.stacks[stage].usageSweep.handlerFunction.logGroupRef);
    expect(fn()?.Properties?.LoggingConfig).toMatchObject({ LogGroup: { Ref: logGroupId }, LogFormat: 'JSON' });
    expect(json[stage].Resources[logGroupId]?.Properties?.RetentionInDays).toBe(CDK_JSON_SETTINGS[stage].logRetentionDays ?? 90);
  });

  it('raises an alarm when a run fails and when no run started for three hours; both notify the alarm topic', () => {
    const topicId = logicalIdOf(stage, app.stacks[stage].monitoring.topic);
    const alarms = resourcesOf(stage, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties ?? {});
    const on = (metricName: string) =>
      alarms.filter((a) => a.MetricName === metricName && JSON.stringify(a.Dimensions).includes(`"${fnId()}"`));
    const [errors] = on('Errors');
    expect(errors).toMatchObject({ Statistic: 'Sum', Period: 3600, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(errors?.AlarmActions).toContainEqual({ Ref: topicId });
    const [silent] = on('Invocations');
    expect(silent).toMatchObject({
      Period: 3600,
      EvaluationPeriods: 3,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(silent?.AlarmActions).toContainEqual({ Ref: topicId });
  });
});
