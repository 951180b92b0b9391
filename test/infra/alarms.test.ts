/**
 * Alarms that reach someone: CloudWatch may publish to the alarm topic (decided by evaluating the synthesized
 * topic policy the way AWS does), production does not synthesize without an alarm destination the operator chose,
 * and a throttled function of either stage raises an alarm.
 */
import { App, CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageSettings } from '../../infra/config.js';
import { PetStoreStack } from '../../infra/pet-store-stack.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import { resourcesOfType, type TemplateJson } from '../support/cloudformation.js';
import { type AccessRequest, evaluate, policyDocument, resolveIntrinsics } from '../support/iam-policy.js';
import { perStage, synthApp, TEST_OVERRIDES } from './synth-app.js';

const ACCOUNT = TEST_OVERRIDES.account;
const REGION = TEST_OVERRIDES.region;
let app: ReturnType<typeof synthApp>;
let json: Record<Stage, TemplateJson>;

beforeAll(() => {
  app = synthApp();
  json = perStage((stage) => app.json(stage));
}, 120_000);

const resourcesOf = (stage: Stage, type: string) => resourcesOfType(json[stage], type);

/** The stack's alarm topic: its logical id, the ARN its Ref stands for, and the policies attached to it. */
function alarmTopic(stage: Stage) {
  const topic = app.stacks[stage].monitoring.topic.node.defaultChild;
  if (!(topic instanceof CfnElement)) throw new Error('the alarm topic has no CloudFormation resource');
  const topicId = app.stacks[stage].getLogicalId(topic);
  const topicArn = `arn:aws:sns:${REGION}:${ACCOUNT}:${topicId}`;
  const refs = { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION, 'AWS::Partition': 'aws', [topicId]: topicArn };
  const policies = resourcesOf(stage, 'AWS::SNS::TopicPolicy')
    .filter(([, p]) => JSON.stringify(p.Properties?.Topics).includes(`"${topicId}"`))
    .map(([, p]) => policyDocument(resolveIntrinsics(p.Properties?.PolicyDocument, refs)));
  return { topicId, topicArn, policies };
}

describe.each(STAGES)('the %s alarm topic', (stage) => {
  const alarmArn = (account: string = ACCOUNT) =>
    `arn:aws:cloudwatch:${REGION}:${account}:alarm:PetStore-${stage}-ServerErrorRate-0A1B2C3D`;
  const publish = (overrides: Partial<AccessRequest> & { context?: Record<string, string> } = {}): AccessRequest => ({
    principal: { service: 'cloudwatch.amazonaws.com' },
    action: 'sns:Publish',
    resource: alarmTopic(stage).topicArn,
    ...overrides,
    context: { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': alarmArn(), 'aws:SecureTransport': 'true', ...overrides.context },
  });

  it('is what every alarm of the stack notifies', () => {
    const alarms = resourcesOf(stage, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(0);
    for (const [id, alarm] of alarms) expect(alarm.Properties?.AlarmActions, id).toContainEqual({ Ref: alarmTopic(stage).topicId });
  });

  it("lets this account's CloudWatch alarms publish to it", () => {
    expect(evaluate(alarmTopic(stage).policies, publish())).toBe('Allow');
  });

  it('still refuses any publish that does not come over TLS, CloudWatch included (explicit Deny)', () => {
    expect(evaluate(alarmTopic(stage).policies, publish({ context: { 'aws:SecureTransport': 'false' } }))).toBe('ExplicitDeny');
  });

  it("lets no other account's alarms, no other service and no one else publish", () => {
    const { policies } = alarmTopic(stage);
    const otherAccount = '210987654321';
    expect(evaluate(policies, publish({ context: { 'aws:SourceAccount': otherAccount, 'aws:SourceArn': alarmArn(otherAccount) } }))).toBe(
      'ImplicitDeny',
    );
    // A confused deputy: CloudWatch acting for this account's name but for something that is not one of its alarms.
    expect(evaluate(policies, publish({ context: { 'aws:SourceArn': `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:dashboard/x` } }))).toBe(
      'ImplicitDeny',
    );
    expect(evaluate(policies, publish({ principal: { service: 'events.amazonaws.com' } }))).toBe('ImplicitDeny');
    expect(evaluate(policies, publish({ principal: 'anonymous' }))).toBe('ImplicitDeny');
    expect(evaluate(policies, publish({ principal: { aws: `arn:aws:iam::${otherAccount}:root` } }))).toBe('ImplicitDeny');
  });
});

describe('the policy evaluator itself', () => {
  const allow = { Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish', Resource: '*' } as const;
  const request: AccessRequest = {
    principal: { service: 'cloudwatch.amazonaws.com' },
    action: 'SNS:Publish',
    resource: 'arn:x',
    context: {},
  };

  it('denies implicitly without a matching Allow, and lets an explicit Deny win over an Allow', () => {
    expect(evaluate([{ Statement: [] }], request)).toBe('ImplicitDeny');
    expect(evaluate([{ Statement: [allow] }], request)).toBe('Allow');
    expect(evaluate([{ Statement: [allow, { ...allow, Effect: 'Deny', Principal: '*' }] }], request)).toBe('ExplicitDeny');
  });

  it('fails a positive condition on a missing key, passes a negated one, and refuses operators it does not know', () => {
    const withCondition = (Condition: Record<string, Record<string, string>>) => [{ Statement: [{ ...allow, Condition }] }];
    expect(evaluate(withCondition({ StringEquals: { 'aws:SourceAccount': '1' } }), request)).toBe('ImplicitDeny');
    expect(evaluate(withCondition({ StringNotEquals: { 'aws:SourceAccount': '1' } }), request)).toBe('Allow');
    expect(evaluate(withCondition({ StringEqualsIfExists: { 'aws:SourceAccount': '1' } }), request)).toBe('Allow');
    expect(() => evaluate(withCondition({ NumericLessThan: { 'aws:EpochTime': '1' } }), request)).toThrow(/not supported/);
  });

  it('matches ArnLike part by part, so a wildcard cannot cross into another service or account', () => {
    const arnLike = (pattern: string, arn: string) =>
      evaluate([{ Statement: [{ ...allow, Condition: { ArnLike: { 'aws:SourceArn': pattern } } }] }], {
        ...request,
        context: { 'aws:SourceArn': arn },
      });
    expect(arnLike('arn:aws:cloudwatch:eu-west-1:123456789012:alarm:*', 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:a:b')).toBe(
      'Allow',
    );
    expect(arnLike('arn:aws:cloudwatch:*:123456789012:alarm:*', 'arn:aws:cloudwatch:eu-west-1:999999999999:alarm:a')).toBe('ImplicitDeny');
    expect(arnLike('arn:aws:*:eu-west-1:123456789012:alarm:*', 'arn:aws:sns:eu-west-1:123456789012:alarm:a')).toBe('Allow');
  });
});

describe('the alarm destination', () => {
  /** A stack of `stage` alone (no cdk-nag, no bundling) with `settings` as -c strings, and its error annotations. */
  const stackWith = (stage: Stage, settings: Record<string, string>) => {
    const context = Object.fromEntries(Object.entries(settings).map(([key, value]) => [`petstore:${stage}:${key}`, value]));
    const stack = new PetStoreStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), `Alarms-${stage}`, {
      stage,
      settings: stageSettings(stage, context),
      env: { account: ACCOUNT, region: REGION },
    });
    const errors = Annotations.fromStack(stack)
      .findError('*', Match.anyValue())
      .map((e) => String(e.entry.data));
    return { template: Template.fromStack(stack), errors };
  };

  it('must be decided for production: without one its synth fails, saying what to set', () => {
    const { errors } = stackWith('production', {});
    expect(errors).toEqual([expect.stringMatching(/production stack has no alarm destination/)]);
    for (const key of ['petstore.production.alarmEmail', 'petstore.production.alarmTopicArn', 'petstore.production.alarmOptOut=true']) {
      expect(errors[0]).toContain(key);
    }
  });

  it('may stay undecided for staging', () => {
    expect(stackWith('staging', {}).errors).toEqual([]);
  });

  it('is decided by an e-mail, an existing topic, or an explicit opt-out, and an existing topic gets every alarm too', () => {
    const topicArn = `arn:aws:sns:${REGION}:${ACCOUNT}:pager`;
    expect(stackWith('production', { alarmEmail: 'oncall@example.com' }).errors).toEqual([]);
    expect(stackWith('production', { alarmOptOut: 'true' }).errors).toEqual([]);
    const { template, errors } = stackWith('production', { alarmTopicArn: topicArn });
    expect(errors).toEqual([]);
    // Every alarm notifies it when it fires and when it clears, the rollout's included.
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(4);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toContainEqual(topicArn);
      expect(alarm.Properties.OKActions).toContainEqual(topicArn);
    }
  });
});
