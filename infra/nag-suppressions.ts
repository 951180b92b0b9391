/** Every cdk-nag finding we accept, each on the narrowest construct, with the reason a security reviewer would ask for. */
import { NagSuppressions } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { PetStoreStack } from './pet-store-stack.js';

export const REASONS = {
  cognito:
    'Clients authenticate with API keys (Authorization: Bearer pet_live_/pet_test_ keys, stored only as SHA-256 hashes), as the interface ' +
    'specification requires; every method uses the REQUEST Lambda authorizer, which checks the key checksum, its status, its environment ' +
    'and the customer before API Gateway invokes the operation. There are no end users, so a Cognito user pool would authenticate nobody.',
  requestValidation:
    'Request bodies are validated by the function against the valibot NewCategory schema, so that a refusal names the offending field in ' +
    "the contract's Error shape (400 VALIDATION_FAILED / MALFORMED_JSON, 415, 413 in a fixed, tested order). API Gateway model validation " +
    'would answer first with a generic message and differently from the local gateway. The only parameter, petId, is checked by its function.',
  apiGatewayLogsRole:
    'AmazonAPIGatewayPushToCloudWatchLogs is the AWS-maintained policy for the account-level role API Gateway assumes to write execution ' +
    'logs; it grants only the CloudWatch Logs actions that service needs and is kept current by AWS as the service changes.',
  xray:
    'The only wildcard is X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords), added by Tracing.ACTIVE: these actions do not ' +
    'support resource-level permissions, so AWS requires Resource "*". DynamoDB statements name table ARNs only (asserted by test/infra).',
  codeDeployRole:
    'AWSCodeDeployRoleForLambdaLimited is the AWS-maintained policy for the service role CodeDeploy assumes to shift a Lambda alias ' +
    'between versions (lambda:GetAlias, UpdateAlias, GetProvisionedConcurrencyConfig, cloudwatch:DescribeAlarms; S3 reads only of ' +
    'CodeDeploy-tagged revisions; invoking only CodeDeployHook_* functions, of which there are none). It is the narrow one of the two ' +
    'AWS offers, only codedeploy.amazonaws.com can assume the role, and AWS keeps it current as the service changes, where a copy ' +
    'written here would fail a release with AccessDenied the day CodeDeploy needs one more action.',
} as const;

/** An AWS-managed policy on a service role. */
function acceptManagedPolicy(role: IConstruct, reason: string, policy: string): void {
  NagSuppressions.addResourceSuppressions(role, [
    { id: 'AwsSolutions-IAM4', reason, appliesTo: [`Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/${policy}`] },
  ]);
}

/** API Gateway's account-wide logging role, in a stack of its own (infra/api-gateway-account-stack.ts). */
export function acknowledgeAccountRoleFindings(role: IConstruct): void {
  acceptManagedPolicy(role, REASONS.apiGatewayLogsRole, 'AmazonAPIGatewayPushToCloudWatchLogs');
}

export function acknowledgeFindings(stack: PetStoreStack): void {
  const { api } = stack.api;
  NagSuppressions.addResourceSuppressions(api, [{ id: 'AwsSolutions-APIG2', reason: REASONS.requestValidation }]);
  for (const method of api.methods) {
    NagSuppressions.addResourceSuppressions(method, [{ id: 'AwsSolutions-COG4', reason: REASONS.cognito }]);
  }
  for (const fn of [stack.api.authorizerFunction, ...Object.values(stack.api.functions), stack.usageSweep.handlerFunction]) {
    const xray = [{ id: 'AwsSolutions-IAM5', reason: REASONS.xray, appliesTo: ['Resource::*'] }];
    if (fn.role) NagSuppressions.addResourceSuppressions(fn.role, xray, true);
  }
  acceptManagedPolicy(stack.rollout.role, REASONS.codeDeployRole, 'AWSCodeDeployRoleForLambdaLimited');
}
