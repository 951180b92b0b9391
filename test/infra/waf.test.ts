/**
 * The WAF web ACL in front of each stage, judged by evaluating the synthesized rules as WAF does
 * (test/support/waf-rules.ts): a body over 16 KiB is refused with the contract's 413 before it reaches a function,
 * and no rule ever refuses a request that carries a key a customer could be admitted with.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey, KEY_PREFIX } from '../../lib/auth/keys.js';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import { type Json, resourcesOfType, type TemplateJson } from '../support/cloudformation.js';
import { evaluateWebAcl, type WafRequest } from '../support/waf-rules.js';
import { CDK_JSON_SETTINGS, perStage, synthApp } from './synth-app.js';

let json: Record<Stage, TemplateJson>;

beforeAll(() => {
  const app = synthApp();
  json = perStage((stage) => app.json(stage));
}, 120_000);

const resourcesOf = (stage: Stage, type: string) => resourcesOfType(json[stage], type).map(([, resource]) => resource);
const webAcl = (stage: Stage): Json => {
  const acls = resourcesOf(stage, 'AWS::WAFv2::WebACL');
  expect(acls).toHaveLength(1);
  return acls[0]?.Properties;
};
const gatewayResponse = (stage: Stage, type: string): Json =>
  resourcesOf(stage, 'AWS::ApiGateway::GatewayResponse').find((r) => r.Properties?.ResponseType === type)?.Properties;

/** cdk.json's keyless rate for a stage, or the documented default. */
const configuredRate = (stage: Stage): number => v.parse(v.optional(v.number(), 2000), CDK_JSON_SETTINGS[stage].wafRateLimitPer5Minutes);

const withKey = (stage: Stage, bodyBytes = 0): WafRequest => ({ headers: { Authorization: `Bearer ${generateKey(stage)}` }, bodyBytes });

describe.each(STAGES)('the %s web ACL', (stage) => {
  it('is associated with the stage', () => {
    expect(resourcesOf(stage, 'AWS::WAFv2::WebACLAssociation')).toHaveLength(1);
  });

  it("inspects a body's first 16 KiB, the contract's limit exactly, at no extra inspection fee", () => {
    expect(webAcl(stage).AssociationConfig).toEqual({ RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_16' } } });
    expect(MAX_BODY_BYTES).toBe(16_384);
  });

  it('refuses a body over 16 KiB, whatever its size, before API Gateway invokes anything', () => {
    for (const bodyBytes of [MAX_BODY_BYTES + 1, 64 * 1024, 5 * 1024 * 1024, 10 * 1024 * 1024]) {
      expect(evaluateWebAcl(webAcl(stage), withKey(stage, bodyBytes)).blockedBy?.name, `${bodyBytes} bytes`).toBe('body-size');
    }
    // Within the limit only the per-address rate rule can block it, once its address is over that rule's limit.
    for (const bodyBytes of [0, 1, MAX_BODY_BYTES]) {
      expect([undefined, 'address-rate'], `${bodyBytes} bytes`).toContain(
        evaluateWebAcl(webAcl(stage), withKey(stage, bodyBytes)).blockedBy?.name,
      );
    }
  });

  it("answers that body with API Gateway's WAF_FILTERED response: 413 PAYLOAD_TOO_LARGE in the Error shape with X-Request-Id, no-store, nosniff", () => {
    // Blocked without a WAF custom response, which would take precedence and could not carry the request id.
    expect(evaluateWebAcl(webAcl(stage), withKey(stage, MAX_BODY_BYTES + 1)).blockedBy?.customResponse).toBeUndefined();
    const response = gatewayResponse(stage, 'WAF_FILTERED');
    expect(response?.StatusCode).toBe('413');
    expect(JSON.parse(response?.ResponseTemplates['application/json'])).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(response?.ResponseParameters).toMatchObject({
      'gatewayresponse.header.X-Request-Id': 'context.requestId',
      'gatewayresponse.header.Cache-Control': "'no-store'",
      'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
    });
  });

  it('gives a custom response to every other blocking rule, so WAF_FILTERED can only mean a body too large', () => {
    for (const rule of webAcl(stage).Rules) {
      if (rule.Name !== 'body-size') expect(rule.Action.Block?.CustomResponse, rule.Name).toBeDefined();
    }
  });

  it('never counts a request that carries a well-formed key of this stage in the keyless rule, however the Authorization header is spelled: only the per-address rule does', () => {
    const whitespace = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });
    const scheme = fc.mixedCase(fc.constant('bearer'));
    fc.assert(
      fc.property(
        whitespace,
        scheme,
        whitespace.filter((s) => s.length > 0),
        whitespace,
        fc.nat(MAX_BODY_BYTES),
        (lead, bearer, gap, tail, bodyBytes) => {
          const outcome = evaluateWebAcl(webAcl(stage), {
            headers: { authorization: `${lead}${bearer}${gap}${generateKey(stage)}${tail}` },
            bodyBytes,
          });
          expect(outcome.countedBy.map((rule) => rule.name)).toEqual(['address-rate']);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("bounds requests without such a key per IP, at cdk.json's rate, and tells a refused sender WAF's window in Retry-After", () => {
    const otherStage = STAGES.find((s) => s !== stage) ?? stage;
    const keyless: WafRequest[] = [
      { headers: {}, bodyBytes: 0 },
      { headers: { Authorization: 'Bearer nonsense' }, bodyBytes: 10 },
      { headers: { Authorization: `Bearer ${KEY_PREFIX[stage]}short` }, bodyBytes: 0 },
      { headers: { Authorization: `Bearer ${generateKey(otherStage)}` }, bodyBytes: 0 },
    ];
    for (const request of keyless) {
      const outcome = evaluateWebAcl(webAcl(stage), request);
      expect(outcome.countedBy, JSON.stringify(request.headers)).toEqual([
        { name: 'keyless-rate', limit: configuredRate(stage), windowSeconds: 300 },
      ]);
      const response = outcome.blockedBy?.customResponse;
      expect(response?.ResponseCode).toBe(429);
      expect(response?.ResponseHeaders).toContainEqual({ Name: 'Retry-After', Value: '300' });
      const body = JSON.parse(webAcl(stage).CustomResponseBodies[response?.CustomResponseBodyKey ?? ''].Content);
      expect(body).toMatchObject({ code: 'THROTTLED', status: 429 });
    }
  });
});
