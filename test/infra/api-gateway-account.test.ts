/**
 * API Gateway's account-wide CloudWatch role (AWS::ApiGateway::Account): "To avoid overwriting other roles, you should
 * only have one AWS::ApiGateway::Account resource per region per account" (AWS CloudFormation template reference).
 * So exactly one template of each account and region holds it, neither stage's, and the stages depend on it.
 */
import { describe, expect, it } from 'vitest';
import { API_GATEWAY_ACCOUNT_STACK } from '../../infra/api-gateway-account-stack.js';
import { STACK_NAMES, STAGES } from '../../lib/stacks.js';
import { synthApp } from './synth-app.js';

function holdersOf(app: ReturnType<typeof synthApp>, type: string) {
  return app.assembly.stacks
    .filter((stack) => Object.values(stack.template.Resources ?? {}).some((r) => (r as { Type?: string }).Type === type))
    .map((stack) => ({ name: stack.stackName, env: stack.environment.name }));
}

describe("API Gateway's account setting", () => {
  it('is in one template only, a stack of its own, when both stages share an account and region', () => {
    const app = synthApp();
    expect(holdersOf(app, 'AWS::ApiGateway::Account')).toEqual([{ name: API_GATEWAY_ACCOUNT_STACK, env: 'aws://123456789012/eu-west-1' }]);
    const template = app.assembly.getStackByName(API_GATEWAY_ACCOUNT_STACK).template;
    const resources = Object.values(template.Resources) as {
      Type: string;
      DeletionPolicy?: string;
      Properties?: Record<string, unknown>;
    }[];
    const account = resources.find((r) => r.Type === 'AWS::ApiGateway::Account');
    const role = resources.find((r) => r.Type === 'AWS::IAM::Role');
    expect(JSON.stringify(account?.Properties?.CloudWatchRoleArn)).toContain('CloudWatchRole');
    expect(JSON.stringify(role?.Properties?.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    // Kept if the stack is deleted, so the stages' execution logs never stop.
    expect(account?.DeletionPolicy).toBe('Retain');
    expect(role?.DeletionPolicy).toBe('Retain');
    for (const stage of STAGES) {
      // The stage's logging needs the role first: `cdk deploy PetStore-<Stage>` deploys this stack before it.
      expect(app.artifact(stage).dependencies.map((d) => d.id)).toContain(API_GATEWAY_ACCOUNT_STACK);
      expect(Object.keys(app.template(stage).findResources('AWS::ApiGateway::Account'))).toEqual([]);
    }
  }, 120_000);

  it('is one per account when the stages are pinned to different accounts', () => {
    const app = synthApp({ 'petstore:staging:account': '210987654321' });
    const holders = holdersOf(app, 'AWS::ApiGateway::Account');
    expect(holders.map((h) => h.env).sort()).toEqual(['aws://123456789012/eu-west-1', 'aws://210987654321/eu-west-1']);
    for (const stage of STAGES) {
      const [dependency] = app.artifact(stage).dependencies.filter((d) => holders.some((h) => h.name === d.id));
      expect(dependency?.id).toBe(`${API_GATEWAY_ACCOUNT_STACK}-${STACK_NAMES[stage].replace('PetStore-', '')}`);
    }
  }, 120_000);
});
