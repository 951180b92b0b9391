/**
 * How a release reaches traffic, read from the synthesized templates: every function (the authorizer included) is
 * invoked through its live alias, API Gateway can invoke nothing else, and CodeDeploy moves each alias to a new
 * version in the stage's steps, rolling back when the new version's errors or the API's 5xx rate alarm. Also: which
 * changes publish a new version (and so start a deployment), and the optional warm authorizer.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageSettings } from '../../infra/config.js';
import { LIVE_ALIAS } from '../../infra/constructs/api-function.js';
import { DEPLOYMENT_CONFIGS, ROLLOUT_ALARM_THRESHOLDS } from '../../infra/constructs/gradual-deployment.js';
import { PetStoreStack } from '../../infra/pet-store-stack.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import { type Json, type Resource, readTemplate } from '../support/cloudformation.js';
import { CDK_JSON_CONTEXT, logicalIdIn, perStage, synthApp } from './synth-app.js';

let app: ReturnType<typeof synthApp>;
let resources: Record<Stage, Record<string, Resource>>;

beforeAll(() => {
  app = synthApp();
  resources = perStage((stage) => app.json(stage).Resources);
}, 120_000);

const ofType = (stage: Stage, type: string) => Object.entries(resources[stage]).filter(([, r]) => r.Type === type);
const logicalIdOf = (stage: Stage, construct: IConstruct) => logicalIdIn(app.stacks[stage], construct);
const errorAlarmOf = (stage: Stage, name: string) => {
  const alarm = app.stacks[stage].rollout.newVersionErrorAlarms[name];
  if (!alarm) throw new Error(`no rollout alarm for ${name} in ${stage}`);
  return alarm;
};
const ref = (logicalId: string) => ({ Ref: logicalId });

/** Every function of a stage with its name (the construct id the deployment groups are named after). */
const functionsOf = (stage: Stage) => app.stacks[stage].api.allFunctions.map((fn) => ({ name: fn.node.id, fn }));
/** The Lambda permissions API Gateway holds; the usage sweep's schedule holds the only other one (usage-sweep.test.ts). */
const gatewayPermissions = (stage: Stage) =>
  ofType(stage, 'AWS::Lambda::Permission').filter(([, p]) => p.Properties?.Principal === 'apigateway.amazonaws.com');

describe.each(STAGES)('the %s stack', (stage) => {
  it('has one function per route plus the authorizer and the usage sweep, each with a live alias on its current version', () => {
    const sweep = app.stacks[stage].usageSweep.handlerFunction;
    const functions = [...functionsOf(stage), { name: sweep.node.id, fn: sweep }];
    expect(functions.map((f) => f.name)).toContain('Authorizer');
    expect(ofType(stage, 'AWS::Lambda::Function')).toHaveLength(functions.length);
    expect(ofType(stage, 'AWS::Lambda::Alias')).toHaveLength(functions.length);
    for (const { fn } of functions) {
      const fnId = logicalIdOf(stage, fn);
      const alias = resources[stage][logicalIdOf(stage, fn.live)];
      expect(alias?.Properties).toMatchObject({ Name: LIVE_ALIAS, FunctionName: ref(fnId) });
      const versionId: string = alias?.Properties?.FunctionVersion?.['Fn::GetAtt']?.[0];
      expect(alias?.Properties?.FunctionVersion).toEqual({ 'Fn::GetAtt': [versionId, 'Version'] });
      const version = resources[stage][versionId];
      expect(version?.Type).toBe('AWS::Lambda::Version');
      expect(version?.Properties?.FunctionName).toEqual(ref(fnId));
      // Kept when a release replaces it, so the alias can be pointed back at it by hand; but deleted when the deploy
      // that created it rolls back, so that deploying the same release again publishes it anew instead of failing
      // with "A version for this Lambda function exists" (RETAIN_ON_UPDATE_OR_DELETE).
      expect(version?.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(version?.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('integrates every method with an alias, never with a function or a version', () => {
    const aliasIds = new Set(ofType(stage, 'AWS::Lambda::Alias').map(([id]) => id));
    const notAliases = new Set(
      [...ofType(stage, 'AWS::Lambda::Function'), ...ofType(stage, 'AWS::Lambda::Version')].map(([id]) => `"${id}"`),
    );
    const methods = ofType(stage, 'AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThan(0);
    for (const [id, method] of methods) {
      const uri = JSON.stringify(method.Properties?.Integration?.Uri);
      const named = [...aliasIds].filter((aliasId) => uri.includes(`"${aliasId}"`));
      expect(named, id).toHaveLength(1);
      expect(
        [...notAliases].filter((needle) => uri.includes(needle)),
        id,
      ).toEqual([]);
      expect(uri, id).toMatch(/:lambda:path\/2015-03-31\/functions\/.*\/invocations/);
    }
  });

  it("points the authorizer (and so its cached decisions) at the authorizer function's live alias", () => {
    const authorizers = ofType(stage, 'AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const uri = JSON.stringify(authorizers[0]?.[1].Properties?.AuthorizerUri);
    expect(uri).toContain(`"${logicalIdOf(stage, app.stacks[stage].api.authorizerFunction.live)}"`);
    expect(uri).not.toContain(`"${logicalIdOf(stage, app.stacks[stage].api.authorizerFunction)}"`);
  });

  it('lets API Gateway invoke the aliases only: one permission per method and one for the authorizer, none on a function', () => {
    const sweepAlias = logicalIdOf(stage, app.stacks[stage].usageSweep.handlerFunction.live);
    const aliasIds = new Set(ofType(stage, 'AWS::Lambda::Alias').map(([id]) => id));
    aliasIds.delete(sweepAlias);
    const permissions = gatewayPermissions(stage);
    expect(permissions).toHaveLength(ofType(stage, 'AWS::ApiGateway::Method').length + 1);
    expect(ofType(stage, 'AWS::Lambda::Permission')).toHaveLength(permissions.length + 1);
    for (const [id, permission] of permissions) {
      expect(permission.Properties?.Principal, id).toBe('apigateway.amazonaws.com');
      expect(permission.Properties?.Action, id).toBe('lambda:InvokeFunction');
      const target: { Ref?: string } = permission.Properties?.FunctionName;
      expect(aliasIds.has(target.Ref ?? ''), `${id} is on ${JSON.stringify(target)}`).toBe(true);
    }
    // Every alias is reachable, and only from its own stage's API.
    expect(new Set(permissions.map(([, p]) => p.Properties?.FunctionName.Ref))).toEqual(aliasIds);
    const apiId = logicalIdOf(stage, app.stacks[stage].api.api);
    for (const [, permission] of permissions) expect(JSON.stringify(permission.Properties?.SourceArn)).toContain(`{"Ref":"${apiId}"}`);
  });

  it("scopes each method's permission to its method and path on stage v1, by the stage's name rather than a reference", () => {
    const stageIds = ofType(stage, 'AWS::ApiGateway::Stage').map(([id]) => id);
    for (const [id, permission] of gatewayPermissions(stage)) {
      const sourceArn = JSON.stringify(permission.Properties?.SourceArn);
      for (const stageId of stageIds) expect(sourceArn, id).not.toContain(`"${stageId}"`);
    }
    for (const fn of Object.values(app.stacks[stage].api.functions)) {
      const aliasId = logicalIdOf(stage, fn.live);
      const [, permission] = ofType(stage, 'AWS::Lambda::Permission').find(([, p]) => p.Properties?.FunctionName.Ref === aliasId) ?? [];
      const parts: unknown[] = permission?.Properties?.SourceArn?.['Fn::Join']?.[1] ?? [];
      expect(parts.at(-1)).toBe(`/v1/${fn.route.method}${fn.route.path.replace(/\{[^}]*\}/g, '*')}`);
    }
  });

  it("moves the stage to a new API deployment only after every alias's invoke permission exists", () => {
    const deployments = ofType(stage, 'AWS::ApiGateway::Deployment');
    expect(deployments).toHaveLength(1);
    const dependsOn = [deployments[0]?.[1].DependsOn ?? []].flat();
    const permissionIds = gatewayPermissions(stage).map(([id]) => id);
    expect(permissionIds.filter((id) => !dependsOn.includes(id))).toEqual([]);
  });

  it('deploys every alias through a CodeDeploy deployment group of its own, in one application of the stage', () => {
    const applications = ofType(stage, 'AWS::CodeDeploy::Application');
    expect(applications).toHaveLength(1);
    const [applicationId, application] = applications[0] ?? [];
    expect(application?.Properties).toEqual({ ApplicationName: `petstore-${stage}`, ComputePlatform: 'Lambda' });
    const groups = ofType(stage, 'AWS::CodeDeploy::DeploymentGroup');
    expect(groups).toHaveLength(functionsOf(stage).length);
    for (const { name, fn } of functionsOf(stage)) {
      const alias = resources[stage][logicalIdOf(stage, fn.live)];
      const groupId: string = alias?.UpdatePolicy?.CodeDeployLambdaAliasUpdate?.DeploymentGroupName?.Ref;
      expect(alias?.UpdatePolicy).toEqual({
        CodeDeployLambdaAliasUpdate: { ApplicationName: ref(applicationId ?? ''), DeploymentGroupName: ref(groupId) },
      });
      // Updated after its group and alarms, so the error alarm already watches the new version when traffic moves.
      expect(alias?.DependsOn, name).toContain(groupId);
      expect(resources[stage][groupId]?.Properties).toMatchObject({
        ApplicationName: ref(applicationId ?? ''),
        DeploymentGroupName: name,
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
      });
    }
  });

  it(
    stage === 'production'
      ? 'shifts production traffic in steps: 10 % for 5 minutes, then all'
      : 'shifts staging traffic all at once (cdk.json), through the same deployment groups',
    () => {
      const expected = stage === 'production' ? 'CodeDeployDefault.LambdaCanary10Percent5Minutes' : 'CodeDeployDefault.LambdaAllAtOnce';
      for (const [id, group] of ofType(stage, 'AWS::CodeDeploy::DeploymentGroup')) {
        expect(group.Properties?.DeploymentConfigName, id).toBe(expected);
      }
    },
  );

  it("rolls a deployment back when its function's new version errs or the API answers 5xx, when it fails and when it is stopped", () => {
    const serverErrorAlarmId = logicalIdOf(stage, app.stacks[stage].rollout.serverErrorAlarm);
    for (const { name, fn } of functionsOf(stage)) {
      const alias = resources[stage][logicalIdOf(stage, fn.live)];
      const group = resources[stage][alias?.UpdatePolicy?.CodeDeployLambdaAliasUpdate?.DeploymentGroupName?.Ref];
      const errorAlarmId = logicalIdOf(stage, errorAlarmOf(stage, name));
      expect(group?.Properties?.AlarmConfiguration, name).toEqual({
        Enabled: true,
        Alarms: [{ Name: ref(errorAlarmId) }, { Name: ref(serverErrorAlarmId) }],
      });
      expect(group?.Properties?.AutoRollbackConfiguration?.Enabled, name).toBe(true);
      expect([...(group?.Properties?.AutoRollbackConfiguration?.Events ?? [])].sort(), name).toEqual(
        ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM', 'DEPLOYMENT_STOP_ON_REQUEST'].sort(),
      );
    }
  });

  it("watches each new version's own errors: the alias's Errors for the version being deployed, any in a minute", () => {
    for (const { name, fn } of functionsOf(stage)) {
      const alarm = resources[stage][logicalIdOf(stage, errorAlarmOf(stage, name))];
      const fnId = logicalIdOf(stage, fn);
      const versionId = resources[stage][logicalIdOf(stage, fn.live)]?.Properties?.FunctionVersion['Fn::GetAtt'][0];
      const metrics: { MetricStat?: Json }[] = alarm?.Properties?.Metrics ?? [];
      const stats = metrics.filter((m) => m.MetricStat);
      expect(stats, name).toHaveLength(1);
      expect(stats[0]?.MetricStat).toEqual({
        Metric: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [
            { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
            { Name: 'FunctionName', Value: ref(fnId) },
            { Name: 'Resource', Value: { 'Fn::Join': ['', [ref(fnId), `:${LIVE_ALIAS}`]] } },
          ],
        },
        Period: 60,
        Stat: 'Sum',
      });
      expect(alarm?.Properties).toMatchObject({
        AlarmName: `petstore-${stage}-rollout-${name}-errors`,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: ROLLOUT_ALARM_THRESHOLDS.newVersionErrors,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    }
  });

  it("watches the API's 5xx rate per minute, judged only with enough requests, and notifies the alarm topic of either", () => {
    const { rollout, monitoring } = app.stacks[stage];
    const alarm = resources[stage][logicalIdOf(stage, rollout.serverErrorAlarm)];
    const metrics: { Id: string; Expression?: string; MetricStat?: Json }[] = alarm?.Properties?.Metrics ?? [];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe(
      `IF(requests >= ${ROLLOUT_ALARM_THRESHOLDS.minRequestsPerMinute}, 100 * errors / requests, 0)`,
    );
    const byId = Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat]));
    for (const [id, metricName] of [
      ['requests', 'Count'],
      ['errors', '5XXError'],
    ] as const) {
      expect(byId[id]).toEqual({
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: [{ Name: 'ApiName', Value: `petstore-${stage}` }] },
        Period: 60,
        Stat: 'Sum',
      });
    }
    expect(alarm?.Properties).toMatchObject({
      AlarmName: `petstore-${stage}-rollout-5xx`,
      Threshold: ROLLOUT_ALARM_THRESHOLDS.serverErrorPercent,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
    // ALARM and OK, as every other alarm of the stage: the all-clear says when a redeploy may start.
    const topic = ref(logicalIdOf(stage, monitoring.topic));
    const rolloutAlarms = [rollout.serverErrorAlarm, ...Object.values(rollout.newVersionErrorAlarms)];
    expect(rolloutAlarms).toHaveLength(functionsOf(stage).length + 1);
    for (const rolloutAlarm of rolloutAlarms) {
      const properties = resources[stage][logicalIdOf(stage, rolloutAlarm)]?.Properties;
      expect(properties?.AlarmActions).toEqual([topic]);
      expect(properties?.OKActions).toEqual([topic]);
    }
  });

  it('gives CodeDeploy one service role, which only CodeDeploy may assume, with the Lambda-limited managed policy alone', () => {
    const roleId = logicalIdOf(stage, app.stacks[stage].rollout.role);
    const groups = ofType(stage, 'AWS::CodeDeploy::DeploymentGroup');
    for (const [, group] of groups) expect(group.Properties?.ServiceRoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    const role = resources[stage][roleId];
    expect(role?.Properties?.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'codedeploy.amazonaws.com' } },
    ]);
    expect(JSON.stringify(role?.Properties?.ManagedPolicyArns)).toBe(
      JSON.stringify([
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited']] },
      ]),
    );
    const policies = ofType(stage, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties?.Roles).includes(`"${roleId}"`));
    expect(policies).toEqual([]);
  });

  it('keeps the authorizer cold by default: no provisioned concurrency on any alias', () => {
    for (const [id, alias] of ofType(stage, 'AWS::Lambda::Alias'))
      expect(alias.Properties?.ProvisionedConcurrencyConfig, id).toBeUndefined();
  });
});

/** A stack synthesized on its own (no cdk-nag), from cdk.json's context with `-c`-style overrides. */
function stackTemplate(stage: Stage, overrides: Record<string, string> = {}) {
  const cdkApp = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], 'aws:cdk:version-reporting': false } });
  const settings = stageSettings(stage, { ...cdkApp.node.getAllContext(), ...overrides });
  const stack = new PetStoreStack(cdkApp, `Rollout${stage}`, { stage, settings, env: { account: '123456789012', region: 'eu-west-1' } });
  const template = { Resources: readTemplate(Template.fromStack(stack).toJSON()).Resources };
  return { stack, template };
}

const idsOfType = (template: { Resources: Record<string, Resource> }, type: string) =>
  Object.entries(template.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id)
    .sort();

describe('which deploys publish a new version, and so start a CodeDeploy deployment', () => {
  const base = stackTemplate('production');

  it('none when nothing changed: the versions keep their logical ids', () => {
    expect(idsOfType(stackTemplate('production').template, 'AWS::Lambda::Version')).toEqual(
      idsOfType(base.template, 'AWS::Lambda::Version'),
    );
  });

  it("a new version of each operation when an operation's setting changes (BAN_SECONDS), and none of the authorizer or the usage sweep", () => {
    const changed = stackTemplate('production', { 'petstore:production:banSeconds': '600' });
    const before = idsOfType(base.template, 'AWS::Lambda::Version');
    const after = idsOfType(changed.template, 'AWS::Lambda::Version');
    const unchanged = (ids: string[]) => ids.filter((id) => /^(ApiAuthorizer|UsageSweepFunction)CurrentVersion/.test(id));
    expect(unchanged(after)).toHaveLength(2);
    expect(unchanged(after)).toEqual(unchanged(before));
    expect(after.filter((id) => !before.includes(id))).toHaveLength(after.length - 2);
  });

  it('none for a change outside the functions (the authorizer cache TTL), which API Gateway applies at once', () => {
    const changed = stackTemplate('production', { 'petstore:production:authorizerCacheTtlSeconds': '30' });
    expect(idsOfType(changed.template, 'AWS::Lambda::Version')).toEqual(idsOfType(base.template, 'AWS::Lambda::Version'));
  });

  it('no new API deployment for a new version: the integrations name the alias, which stays the same', () => {
    const changed = stackTemplate('production', { 'petstore:production:banSeconds': '600' });
    expect(idsOfType(changed.template, 'AWS::ApiGateway::Deployment')).toEqual(idsOfType(base.template, 'AWS::ApiGateway::Deployment'));
  });
});

describe('stage settings of the rollout', () => {
  it('name every predefined CodeDeploy Lambda configuration by its CodeDeploy name', () => {
    for (const [name, config] of Object.entries(DEPLOYMENT_CONFIGS)) {
      expect(config.deploymentConfigName).toBe(`CodeDeployDefault.Lambda${name}`);
    }
  });

  it('default to a canary and to rollback on alarm, and take a configuration from the command line', () => {
    expect(stageSettings('production', {})).toMatchObject({
      deploymentConfig: 'Canary10Percent5Minutes',
      rollbackOnAlarm: true,
      authorizerProvisionedConcurrency: 0,
    });
    const settings = stageSettings('production', { 'petstore:production:deploymentConfig': 'Linear10PercentEvery1Minute' });
    expect(settings.deploymentConfig).toBe('Linear10PercentEvery1Minute');
  });

  it('refuse an unknown deployment configuration, listing the known ones', () => {
    const read = { 'petstore:staging:deploymentConfig': 'CodeDeployDefault.LambdaAllAtOnce' };
    expect(() => stageSettings('staging', read)).toThrow(/staging.*deploymentConfig: must be one of AllAtOnce, Canary10Percent5Minutes,/);
  });

  it('refuse a provisioned concurrency that is negative, fractional or above 100', () => {
    for (const value of ['-1', '1.5', '101']) {
      const read = { 'petstore:production:authorizerProvisionedConcurrency': value };
      expect(() => stageSettings('production', read), value).toThrow(/production.*authorizerProvisionedConcurrency/);
    }
  });

  it('with rollbackOnAlarm=false, keep the alarms but tell CodeDeploy to ignore them', () => {
    const { template } = stackTemplate('production', { 'petstore:production:rollbackOnAlarm': 'false' });
    const groups = Object.values(template.Resources).filter((r) => r.Type === 'AWS::CodeDeploy::DeploymentGroup');
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) {
      expect(group.Properties?.AlarmConfiguration.Enabled).toBe(false);
      expect(group.Properties?.AlarmConfiguration.Alarms).toHaveLength(2);
    }
  });
});

describe('the warm authorizer (authorizerProvisionedConcurrency)', () => {
  it("gives the authorizer's live alias that many provisioned environments, and no other alias any", () => {
    const { stack, template } = stackTemplate('production', { 'petstore:production:authorizerProvisionedConcurrency': '2' });
    const authorizerAlias = logicalIdIn(stack, stack.api.authorizerFunction.live);
    for (const [id, alias] of Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Alias')) {
      expect(alias.Properties?.ProvisionedConcurrencyConfig, id).toEqual(
        id === authorizerAlias ? { ProvisionedConcurrentExecutions: 2 } : undefined,
      );
    }
  });

  it('publishes no new version: it is a setting of the alias, not of the function', () => {
    const warm = stackTemplate('production', { 'petstore:production:authorizerProvisionedConcurrency': '1' });
    expect(idsOfType(warm.template, 'AWS::Lambda::Version')).toEqual(
      idsOfType(stackTemplate('production').template, 'AWS::Lambda::Version'),
    );
  });
});
