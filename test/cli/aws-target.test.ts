/**
 * The CLI with --aws, as an operator runs it: table names from the stack's CloudFormation outputs, and every change
 * recorded as made by the caller's AWS identity (STS GetCallerIdentity). CloudFormation and STS are a local stand-in
 * answering in their own XML; DynamoDB is this run's DynamoDB Local. The SDK finds all three through the
 * AWS_ENDPOINT_URL_<SERVICE> variables, as it would a VPC endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../lib/dynamo/tables.js';
import { STACK_NAMES, TABLE_OUTPUT_KEYS } from '../../lib/stacks.js';
import { petstoreProcess } from '../support/cli.js';

const CALLER_ARN = 'arn:aws:sts::123456789012:assumed-role/PetStoreOperators/alice';
const actions: string[] = [];

function answer(action: string | null): string {
  if (action === 'GetCallerIdentity') {
    return `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>${CALLER_ARN}</Arn><UserId>AROAEXAMPLE:alice</UserId><Account>123456789012</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`;
  }
  const outputs = TABLES.map(
    (t) => `<member><OutputKey>${TABLE_OUTPUT_KEYS[t.id]}</OutputKey><OutputValue>${process.env[t.envVar]}</OutputValue></member>`,
  ).join('');
  return `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${STACK_NAMES.production}</StackName><StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${STACK_NAMES.production}/1</StackId><CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${outputs}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>2</RequestId></ResponseMetadata></DescribeStacksResponse>`;
}

let server: Server;
let env: Record<string, string>;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const action = new URLSearchParams(body).get('Action');
      actions.push(action ?? '?');
      response.writeHead(200, { 'Content-Type': 'text/xml' }).end(answer(action));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const aws = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = {
    AWS_ENDPOINT_URL_STS: aws,
    AWS_ENDPOINT_URL_CLOUDFORMATION: aws,
    AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT ?? '',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'example',
    // The local settings must not matter with --aws.
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    PETSTORE_TABLE_PREFIX: 'nowhere-',
  };
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('petstore CLI --aws', () => {
  it("acts on the stack's tables and records the caller's ARN as who made the change", async () => {
    const plan = await petstoreProcess(['customers', 'set-plan', 'aws-co', 'business', '--aws', '--json'], env);
    expect(plan.stderr).toBe('');
    expect(JSON.parse(plan.stdout)).toEqual({
      customerId: 'aws-co',
      plan: 'business',
      perMinute: 1000,
      perDay: 100000,
      stage: 'production',
    });
    expect(actions).toEqual(expect.arrayContaining(['DescribeStacks', 'GetCallerIdentity']));

    const audit = await petstoreProcess(['audit', '--customer', 'aws-co', '--aws', '--json'], env);
    expect(JSON.parse(audit.stdout)).toEqual([
      expect.objectContaining({
        customerId: 'aws-co',
        action: 'plan-change',
        actor: CALLER_ARN,
        changes: expect.objectContaining({ plan: { from: null, to: 'business' } }),
      }),
    ]);
  });
});
