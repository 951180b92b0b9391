/**
 * PLACEHOLDER, to be replaced by the real API-key authorizer (being written on another branch). It exists only so
 * that `cdk synth` has an entry to bundle, and it fails closed: every request is refused.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  return {
    principalId: 'anonymous',
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn }] },
    context: { message: 'API keys cannot be checked yet: the authorizer is not deployed' },
  };
}
