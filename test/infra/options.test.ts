/**
 * The optional parts of a stack that cdk.json leaves off: a custom domain (whose base URL must still end in /v1,
 * and whose certificate must be in the stack's region), reserved concurrency, and an account and region per stage.
 * Stacks are synthesized on their own, without cdk-nag, to keep this quick.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stageSettings } from '../../infra/config.js';
import { buildApp } from '../../infra/pet-store-app.js';
import { PetStoreStack } from '../../infra/pet-store-stack.js';
import { readTemplate } from '../support/cloudformation.js';
import { CDK_JSON_CONTEXT, CDK_JSON_SETTINGS } from './synth-app.js';

/** The template rule that checks the certificate's region at deploy time, if any. */
const certificateRules = (template: Template): unknown =>
  Object.entries(readTemplate(template.toJSON()).Rules ?? {}).find(([id]) => id.includes('CertificateInStackRegion'))?.[1];

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666';

describe('a stack with a custom domain and reserved concurrency', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const settings = stageSettings('staging', {
    'petstore:staging:domainName': 'api.staging.example.com',
    'petstore:staging:certificateArn': CERTIFICATE,
    'petstore:staging:reservedConcurrency': '25',
  });
  const stack = new PetStoreStack(app, 'Options', { stage: 'staging', settings, env: { account: '123456789012', region: 'eu-west-1' } });
  const template = Template.fromStack(stack);

  it('serves the API under /v1 of the domain, and says so in ApiUrl', () => {
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.staging.example.com',
      RegionalCertificateArn: CERTIFICATE,
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', { BasePath: 'v1', Stage: { Ref: Match.anyValue() } });
    expect(template.toJSON().Outputs.ApiUrl.Value).toBe('https://api.staging.example.com/v1');
    expect(template.toJSON().Outputs.CustomDomainTarget).toBeDefined();
  });

  it('adds no certificate rule: the stack is in the certificate region, which the synth checked', () => {
    expect(certificateRules(template)).toBeUndefined();
  });

  it("reserves the configured concurrency for every function that serves the API, the authorizer included; the hourly usage sweep holds none of the account's pool", () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
    const sweep = functions.filter(([id]) => id.startsWith('UsageSweepFunction'));
    expect(sweep).toHaveLength(1);
    expect(sweep[0]?.[1].Properties.ReservedConcurrentExecutions).toBeUndefined();
    const api = functions.filter(([id]) => !id.startsWith('UsageSweepFunction'));
    expect(api.length).toBeGreaterThan(1);
    for (const [, fn] of api) expect(fn.Properties.ReservedConcurrentExecutions).toBe(25);
  });
});

describe('accounts and regions per stage', () => {
  const build = (context: Record<string, unknown>) =>
    buildApp({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], 'petstore:production:alarmOptOut': 'true', ...context } })
      .stacks;

  it("pin a stage's stack to the account and region cdk.json gives it; -c account/region apply to the other stage only", () => {
    const stacks = build({
      petstore: {
        ...CDK_JSON_SETTINGS,
        production: {
          ...CDK_JSON_SETTINGS.production,
          account: '111111111111',
          region: 'eu-central-1',
        },
      },
      account: '222222222222',
      region: 'eu-west-1',
    });
    expect({ account: stacks.production.account, region: stacks.production.region }).toEqual({
      account: '111111111111',
      region: 'eu-central-1',
    });
    expect({ account: stacks.staging.account, region: stacks.staging.region }).toEqual({ account: '222222222222', region: 'eu-west-1' });
  });
});

describe("a custom domain's certificate", () => {
  const settingsWith = (certificateArn: string) =>
    stageSettings('staging', {
      'petstore:staging:domainName': 'api.staging.example.com',
      'petstore:staging:certificateArn': certificateArn,
    });
  const US_EAST_1 = 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666';

  it("is refused at synth when it is in another region than the stack's, naming both regions", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(
      () =>
        new PetStoreStack(app, 'Elsewhere', {
          stage: 'staging',
          settings: settingsWith(US_EAST_1),
          env: { account: '123456789012', region: 'eu-west-1' },
        }),
    ).toThrow(/certificateArn arn:aws:acm:us-east-1:.* is in us-east-1, but Elsewhere deploys to eu-west-1.*certificate in eu-west-1/);
  });

  it('is checked by a template rule before any change when the stack has no region (environment-agnostic)', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new PetStoreStack(app, 'Agnostic', { stage: 'staging', settings: settingsWith(US_EAST_1) });
    expect(certificateRules(Template.fromStack(stack))).toEqual({
      Assertions: [
        {
          Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] },
          AssertDescription: expect.stringMatching(/certificate in us-east-1.*deploy this stack to us-east-1/),
        },
      ],
    });
  });
});
