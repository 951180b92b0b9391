/** Deployment settings from CDK context: defaults, command-line overrides, and refusals with clear messages. */
import { describe, expect, it } from 'vitest';
import { deploymentEnv, stageSettings } from '../../infra/config.js';

describe('stage settings', () => {
  it('default to the documented values when cdk.json says nothing', () => {
    expect(stageSettings('staging', {})).toEqual({
      authorizerCacheTtlSeconds: 60,
      banSeconds: 900,
      categoryAllowance: 100,
      usageRetentionDays: 400,
      throttleRateLimit: 100,
      throttleBurstLimit: 200,
      petsDeprecatedAt: '2026-06-01T00:00:00Z',
      petsSunsetAt: '2027-06-01T00:00:00Z',
      docsUrl: 'https://petstore.example.com/docs',
      alarmOptOut: false,
      wafRateLimitPer5Minutes: 2000,
      wafRateLimitPerIp: 3000,
      requireGatewayKey: true,
      logRetentionDays: 90,
      deploymentConfig: 'Canary10Percent5Minutes',
      authorizerProvisionedConcurrency: 0,
      rollbackOnAlarm: true,
    });
  });

  it('take cdk.json values per stage, and -c petstore:<stage>:<key> strings over them', () => {
    const context = {
      petstore: { production: { banSeconds: 600, alarmOptOut: false }, staging: { banSeconds: 60 } },
      'petstore:production:banSeconds': '1200',
      'petstore:production:alarmOptOut': 'true',
    };
    expect(stageSettings('production', context)).toMatchObject({ banSeconds: 1200, alarmOptOut: true });
    expect(stageSettings('staging', context)).toMatchObject({ banSeconds: 60 });
  });

  it('refuse a sunset earlier than the deprecation, naming both dates', () => {
    const context = { petstore: { staging: { petsDeprecatedAt: '2027-01-01T00:00:00Z', petsSunsetAt: '2026-01-01T00:00:00Z' } } };
    expect(() => stageSettings('staging', context)).toThrow(
      /staging.*petsSunsetAt.*the sunset date 2026-01-01T00:00:00Z is earlier than the deprecation date 2027-01-01T00:00:00Z/,
    );
  });

  it.each([
    ['authorizerCacheTtlSeconds', '3601', /at most 3600/],
    ['banSeconds', 'soon', /whole number/],
    ['usageRetentionDays', '0', /at least 1/],
    ['categoryAllowance', '0', /at least 1/],
    ['categoryAllowance', '1001', /at most 1000/],
    ['alarmEmail', 'ops', /e-mail/],
    ['logRetentionDays', '31', /must be one of/],
    ['alarmOptOut', 'yes', /true or false/],
    ['alarmTopicArn', 'arn:aws:sqs:eu-west-1:123456789012:q', /ARN of a standard SNS topic/],
    ['reservedConcurrency', '0', /at least 1/],
    ['account', '1234', /12-digit/],
    ['region', 'Europe', /AWS region/],
    ['petsSunsetAt', 'next year', /ISO 8601/],
  ])('refuse %s=%s with a message that says what is expected', (key, value, message) => {
    expect(() => stageSettings('production', { [`petstore:production:${key}`]: value })).toThrow(message);
  });

  it('refuse an alarm opt-out beside an alarm destination', () => {
    const context = { 'petstore:production:alarmOptOut': 'true', 'petstore:production:alarmEmail': 'oncall@example.com' };
    expect(() => stageSettings('production', context)).toThrow(/alarmOptOut=true .* keep one or the other/);
  });

  it('refuse wafEnabled, by name, wherever it is set: WAF is in front of every stage', () => {
    expect(() => stageSettings('staging', { petstore: { staging: { wafEnabled: false } } })).toThrow(/remove wafEnabled/);
    expect(() => stageSettings('staging', { 'petstore:staging:wafEnabled': 'false' })).toThrow(/remove wafEnabled/);
  });

  it('refuse a key that is not a setting, in cdk.json or -c, naming the setting it probably meant', () => {
    expect(() => stageSettings('production', { petstore: { production: { banSecond: 5 } } })).toThrow(
      /unknown setting petstore\.production\.banSecond in cdk\.json \(did you mean banSeconds\?\)/,
    );
    expect(() => stageSettings('production', { 'petstore:production:throttleRatelimit': '9999' })).toThrow(
      /unknown setting petstore:production:throttleRatelimit \(did you mean throttleRateLimit\?\)/,
    );
    // Another stage's keys and CDK's own are not this stage's settings.
    expect(stageSettings('staging', { 'petstore:production:banSeconds': '5', '@aws-cdk/core:newStyleStackSynthesis': true })).toMatchObject(
      {
        banSeconds: 900,
      },
    );
  });

  it('want domainName and certificateArn together', () => {
    expect(() => stageSettings('production', { 'petstore:production:domainName': 'api.example.com' })).toThrow(
      /domainName and certificateArn must be set together/,
    );
  });
});

describe('deployment environment', () => {
  it('comes from context, else from the CDK CLI defaults, else stays environment-agnostic', () => {
    expect(deploymentEnv({ account: '123456789012', region: 'eu-west-1' }, {})).toEqual({
      account: '123456789012',
      region: 'eu-west-1',
    });
    expect(deploymentEnv({}, { CDK_DEFAULT_ACCOUNT: '210987654321', CDK_DEFAULT_REGION: 'us-east-2' })).toEqual({
      account: '210987654321',
      region: 'us-east-2',
    });
    expect(deploymentEnv({}, {})).toEqual({});
    expect(deploymentEnv({}, { CDK_DEFAULT_ACCOUNT: '', CDK_DEFAULT_REGION: '' })).toEqual({});
  });

  it("ignores the CLI's region without its account: the CLI sends us-east-1 whenever nothing configures a region", () => {
    expect(deploymentEnv({}, { CDK_DEFAULT_REGION: 'us-east-1' })).toEqual({});
    expect(deploymentEnv({}, { CDK_DEFAULT_ACCOUNT: '', CDK_DEFAULT_REGION: 'us-east-1' })).toEqual({});
    expect(deploymentEnv({ region: 'eu-west-1' }, { CDK_DEFAULT_REGION: 'us-east-1' })).toEqual({ region: 'eu-west-1' });
    expect(deploymentEnv({ account: '123456789012' }, { CDK_DEFAULT_REGION: 'us-east-1' })).toEqual({ account: '123456789012' });
  });

  it("pins a stage that names its account and region to them, over -c account/region and the CLI's defaults", () => {
    const pinned = { account: '111111111111', region: 'eu-central-1' };
    expect(deploymentEnv({ account: '222222222222', region: 'us-east-2' }, {}, pinned)).toEqual(pinned);
    expect(deploymentEnv({}, { CDK_DEFAULT_ACCOUNT: '210987654321', CDK_DEFAULT_REGION: 'us-east-2' }, pinned)).toEqual(pinned);
    // What the stage leaves open comes from the usual places.
    expect(deploymentEnv({ region: 'eu-west-1' }, {}, { account: '111111111111' })).toEqual({
      account: '111111111111',
      region: 'eu-west-1',
    });
  });

  it('refuses an account id that is not 12 digits', () => {
    expect(() => deploymentEnv({ account: '1234' }, {})).toThrow(/12-digit/);
  });
});
