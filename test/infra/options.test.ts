/**
 * The optional parts of a stack that cdk.json leaves off: a custom domain (whose base URL must still end in /v1)
 * and WAF in staging. One stack is synthesized on its own, without cdk-nag, to keep this quick.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stageSettings } from '../../infra/config.js';
import { PetStoreStack } from '../../infra/pet-store-stack.js';

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1111-2222-3333-444455556666';

describe('a stack with a custom domain and WAF', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const settings = stageSettings(
    'staging',
    (key) =>
      ({
        'petstore:staging:domainName': 'api.staging.example.com',
        'petstore:staging:certificateArn': CERTIFICATE,
        'petstore:staging:wafEnabled': 'true',
      })[key],
  );
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

  it('puts the per-IP rate rule in front of the stage, refusing in the Error shape', () => {
    type Acl = {
      Properties: {
        CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
        Rules: { Action: { Block: { CustomResponse: unknown } } }[];
      };
    };
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0] as Acl;
    const body = acl.Properties.CustomResponseBodies.throttled as { ContentType: string; Content: string };
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toMatchObject({ code: 'THROTTLED', status: 429 });
    expect(acl.Properties.Rules[0]?.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: 'throttled' });
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });
});
