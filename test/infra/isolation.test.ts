/**
 * Isolation as the synthesized templates show it: a usage plan per plan (and Enterprise tier) on each stage, named
 * after it, without a quota, whose token bucket refuses nothing its plan sells; API key source AUTHORIZER and every
 * method requiring the key (unless the first deploy of the upgrade says otherwise); and a WAF rule per address that
 * counts made-up keys too, at most 10 % of the production stage throttle.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../lib/auth/keys.js';
import { PLAN_LIMITS } from '../../lib/plans.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import { ENTERPRISE_TIERS } from '../../lib/usage-plans.js';
import { evaluateWebAcl } from '../support/waf-rules.js';
import { perStage, synthApp } from './synth-app.js';

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON.
type Json = any;
let templates: Record<Stage, Json>;
let upgrading: Json;

const resources = (template: Json, type: string): Json[] => Object.values(template.Resources).filter((r: Json) => r.Type === type);

beforeAll(() => {
  const app = synthApp();
  templates = perStage((stage) => app.template(stage).toJSON());
  upgrading = synthApp({ 'petstore:production:requireGatewayKey': 'false' }).template('production').toJSON();
}, 240_000);

describe.each(STAGES)('the %s stage', (stage) => {
  it('takes the usage plan key from the authorizer, and every method requires it', () => {
    const [api] = resources(templates[stage], 'AWS::ApiGateway::RestApi');
    expect(api.Properties.ApiKeySourceType).toBe('AUTHORIZER');
    const methods = resources(templates[stage], 'AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThan(0);
    for (const method of methods) expect(method.Properties.ApiKeyRequired).toBe(true);
  });

  it('has a usage plan named after each plan and Enterprise tier, without a quota, on the stage', () => {
    const plans = resources(templates[stage], 'AWS::ApiGateway::UsagePlan');
    const names = plans.map((p) => p.Properties.UsagePlanName);
    expect(names).toEqual([
      ...Object.keys(PLAN_LIMITS).map((plan) => `petstore-${stage}-${plan}`),
      ...ENTERPRISE_TIERS.map((tier) => `petstore-${stage}-enterprise-${tier}`),
    ]);
    for (const plan of plans) {
      expect(plan.Properties.Quota).toBeUndefined();
      expect(plan.Properties.ApiStages).toHaveLength(1);
    }
  });

  it.each(Object.entries(PLAN_LIMITS))(
    'refuses nothing the %s plan sells: a minute at :59 and another at :00 fit in the bucket, and it refills a minute in a minute',
    (plan, limits) => {
      const usagePlan = resources(templates[stage], 'AWS::ApiGateway::UsagePlan').find(
        (p) => p.Properties.UsagePlanName === `petstore-${stage}-${plan}`,
      );
      expect(usagePlan.Properties.Throttle.BurstLimit).toBeGreaterThanOrEqual(2 * limits.perMinute);
      expect(usagePlan.Properties.Throttle.RateLimit * 60).toBeGreaterThanOrEqual(limits.perMinute);
    },
  );

  it('counts every request per address, a made-up well-formed key included, and refuses it past the limit', () => {
    const [acl] = resources(templates[stage], 'AWS::WAFv2::WebACL');
    const madeUp = evaluateWebAcl(acl.Properties, { headers: { Authorization: `Bearer ${generateKey(stage)}` }, bodyBytes: 0 });
    expect(madeUp.countedBy.map((rule) => rule.name)).toEqual(['address-rate']);
    expect(madeUp.blockedBy?.customResponse?.ResponseCode).toBe(429);
    // The keyless rule stays, for requests without a key (and blocks them first).
    const keyless = evaluateWebAcl(acl.Properties, { headers: {}, bodyBytes: 0 });
    expect(keyless.blockedBy?.name).toBe('keyless-rate');
  });
});

it('lets one address with made-up keys take at most 10 % of the production stage throttle past WAF', () => {
  const [acl] = resources(templates.production, 'AWS::WAFv2::WebACL');
  const [stageResource] = resources(templates.production, 'AWS::ApiGateway::Stage');
  const stageRate = stageResource.Properties.MethodSettings.find((m: Json) => m.ResourcePath === '/*').ThrottlingRateLimit;
  const rule = evaluateWebAcl(acl.Properties, { headers: { Authorization: `Bearer ${generateKey('production')}` }, bodyBytes: 0 })
    .countedBy[0];
  expect(rule).toBeDefined();
  expect((rule?.limit ?? Number.POSITIVE_INFINITY) / (rule?.windowSeconds ?? 1)).toBeLessThanOrEqual(0.1 * stageRate);
});

it('deploys the first step of the upgrade with usage plans but methods not yet requiring the key', () => {
  expect(resources(upgrading, 'AWS::ApiGateway::UsagePlan').length).toBeGreaterThan(0);
  for (const method of resources(upgrading, 'AWS::ApiGateway::Method')) expect(method.Properties.ApiKeyRequired).toBe(false);
});
