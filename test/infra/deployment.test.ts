/**
 * A change that only touches the authorizer must still reach the stage. API Gateway serves a stage from a
 * Deployment snapshot, and CloudFormation creates a new Deployment only when its logical id changes; without
 * `@aws-cdk/aws-apigateway:authorizerChangeDeploymentLogicalId` (cdk.json) the id ignores the authorizer, so a new
 * cache TTL would be stored on the authorizer yet never deployed to v1.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stageSettings } from '../../infra/config.js';
import { PetStoreStack } from '../../infra/pet-store-stack.js';
import { CDK_JSON_CONTEXT } from './synth-app.js';

/** The logical id of the stage's Deployment in a staging stack synthesized with cdk.json's flags and `overrides`. */
function deploymentId(overrides: Record<string, string>): string {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], 'aws:cdk:version-reporting': false } });
  const settings = stageSettings('staging', { ...app.node.getAllContext(), ...overrides });
  const stack = new PetStoreStack(app, 'Deployment', { stage: 'staging', settings, env: { account: '123456789012', region: 'eu-west-1' } });
  const ids = Object.keys(Template.fromStack(stack).findResources('AWS::ApiGateway::Deployment'));
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

describe('the API deployment', () => {
  const ttl = (seconds: number) => ({ 'petstore:staging:authorizerCacheTtlSeconds': String(seconds) });

  it('keeps its logical id when nothing changes, so an unchanged stack does not redeploy the stage', () => {
    expect(deploymentId(ttl(60))).toBe(deploymentId(ttl(60)));
  }, 60_000); // two synths of a stack: 8 s on a quiet machine, 43 s seen under load

  it('gets a new logical id when the authorizer cache TTL changes, so the new TTL reaches the stage', () => {
    expect(deploymentId(ttl(30))).not.toBe(deploymentId(ttl(60)));
    expect(deploymentId(ttl(0))).not.toBe(deploymentId(ttl(60)));
  }, 60_000);
});
