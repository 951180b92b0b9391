/** API Gateway's account-wide logging role (AWS::ApiGateway::Account): one per account and region, so a stack of its own. */
import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { acknowledgeAccountRoleFindings } from './nag-suppressions.js';

/** The stack's name when both stages share an account and region (or name none): the usual case. */
export const API_GATEWAY_ACCOUNT_STACK = 'PetStore-ApiGatewayAccount';

export class ApiGatewayAccountStack extends Stack {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, {
      description: "Pet Store API: API Gateway's account-wide CloudWatch Logs role (AWS::ApiGateway::Account), one per account and region",
      ...props,
    });
    this.role = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway writing the execution logs of every stage of this account and region',
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    const account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    // Kept if this stack is ever deleted: "When you delete a stack containing this resource, API Gateway can still
    // assume the provided IAM role" (AWS::ApiGateway::Account), so the stages keep logging.
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    acknowledgeAccountRoleFindings(this.role);
  }
}
