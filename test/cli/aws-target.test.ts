/**
 * The CLI with --aws, as an operator runs it: table names and the stage throttle from the stack's CloudFormation
 * outputs, every change recorded as made by the caller's AWS identity (STS GetCallerIdentity), no change without
 * an explicit --stage, and every change reported with the account and stack it went to. CloudFormation and STS are
 * a local stand-in answering in their own XML; DynamoDB is this run's DynamoDB Local. The SDK finds all three
 * through the AWS_ENDPOINT_URL_<SERVICE> variables, as it would a VPC endpoint. One command runs as the process
 * (`npm run petstore`), the others through the CLI's `main` in this process, with the same environment.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../lib/cli/targets.js';
import { TABLES } from '../../lib/dynamo/tables.js';
import { ADDRESS_RATE_OUTPUT, STACK_NAMES, TABLE_OUTPUT_KEYS, THROTTLE_RATE_OUTPUT, USAGE_PLAN_IDS_OUTPUT } from '../../lib/stacks.js';
import { USAGE_PLANS } from '../../lib/usage-plans.js';
import { petstoreProcess, petstoreWith } from '../support/cli.js';
import { restoreEnvironment } from '../support/environment.js';
import { listen } from '../support/listen.js';

const CALLER_ARN = 'arn:aws:sts::123456789012:assumed-role/PetStoreOperators/alice';
const actions: string[] = [];
/** The stack's StageThrottleRateLimit output; none, as from a stack deployed by an earlier version, when undefined. */
let throttleOutput: string | undefined = '50';

function answer(action: string | null): string {
  if (action === 'GetCallerIdentity') {
    return `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>${CALLER_ARN}</Arn><UserId>AROAEXAMPLE:alice</UserId><Account>123456789012</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`;
  }
  const pairs: [string, string | undefined][] = TABLES.map((t) => [TABLE_OUTPUT_KEYS[t.id], process.env[t.envVar]]);
  if (throttleOutput !== undefined) pairs.push([THROTTLE_RATE_OUTPUT, throttleOutput]);
  // The usage plans' ids, and an address limit that admits 3,000 a minute from one address.
  pairs.push([USAGE_PLAN_IDS_OUTPUT, JSON.stringify(Object.fromEntries(USAGE_PLANS.map((p) => [p.name, `up-${p.name}`])))]);
  pairs.push([ADDRESS_RATE_OUTPUT, '9000']);
  const outputs = pairs.map(([key, value]) => `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`).join('');
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
      // API Gateway (REST and JSON): the API key made, and the usage plan keys added and removed.
      if (request.url?.startsWith('/apikeys') || request.url?.startsWith('/usageplans')) {
        actions.push(`${request.method} ${request.url}`);
        const made = request.url === '/apikeys' ? { id: 'key-1', name: 'k', enabled: true } : { id: 'key-1', type: 'API_KEY' };
        response.writeHead(request.method === 'DELETE' ? 202 : 201, { 'Content-Type': 'application/json' }).end(JSON.stringify(made));
        return;
      }
      const action = new URLSearchParams(body).get('Action');
      actions.push(action ?? '?');
      response.writeHead(200, { 'Content-Type': 'text/xml' }).end(answer(action));
    });
  });
  const aws = `http://127.0.0.1:${await listen(server)}`;
  env = {
    AWS_ENDPOINT_URL_STS: aws,
    AWS_ENDPOINT_URL_CLOUDFORMATION: aws,
    AWS_ENDPOINT_URL_API_GATEWAY: aws,
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
  it("acts on the stack's tables, records the caller's ARN as who made the change, and says where it wrote", async () => {
    // The first as the process an operator starts; the rest in-process (`main`), with the same environment.
    const plan = await petstoreProcess(['customers', 'set-plan', 'aws-co', 'business', '--aws', '--stage', 'production', '--json'], env);
    expect(JSON.parse(plan.stdout)).toEqual({
      customerId: 'aws-co',
      plan: 'business',
      perMinute: 1000,
      perDay: 100000,
      stage: 'production',
      usagePlan: 'business',
    });
    // On stderr, so that stdout stays one JSON document.
    expect(plan.stderr.trim()).toBe(
      `petstore: wrote to stack ${STACK_NAMES.production} in account 123456789012 (us-east-1) as ${CALLER_ARN}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining(['DescribeStacks', 'GetCallerIdentity', 'POST /apikeys', 'POST /usageplans/up-business/keys']),
    );

    // A plan change moves the same key: out of the old usage plan (a key may be in one per stage), into the new.
    const moved = await petstoreWith(env, ['customers', 'set-plan', 'aws-co', 'pro', '--aws', '--stage', 'production', '--json']);
    expect(moved.code).toBe(0);
    expect(actions.slice(-2)).toEqual(['DELETE /usageplans/up-business/keys/key-1', 'POST /usageplans/up-pro/keys']);
    await petstoreWith(env, ['customers', 'set-plan', 'aws-co', 'business', '--aws', '--stage', 'production']);

    const audit = await petstoreWith(env, ['audit', '--customer', 'aws-co', '--aws', '--json']);
    expect(audit.stderr).toBe('');
    expect(JSON.parse(audit.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          customerId: 'aws-co',
          action: 'plan-change',
          actor: CALLER_ARN,
          changes: expect.objectContaining({ plan: { from: null, to: 'business' } }),
        }),
      ]),
    );
  });

  it.each([
    ['customers', 'set-plan', 'nowhere-co', 'pro'],
    ['keys', 'create', 'aws-co'],
    ['unban', 'aws-co'],
  ])('refuses to change anything without an explicit --stage (exit 2), before asking AWS anything: %s %s', async (...command) => {
    const before = actions.length;
    const result = await petstoreWith(env, [...command, '--aws']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/with --aws, ".*" changes a deployed stack: say which with --stage production or --stage staging/);
    expect(actions.length).toBe(before);
  });

  it('reads without --stage (production), and says nothing about writing', async () => {
    const listed = await petstoreWith(env, ['keys', 'list', 'aws-co', '--aws', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe('');
  });

  it("sells no limit above the deployed stage's throttle × 60 a minute, naming the stack's output (exit 2, nothing written)", async () => {
    const refused = await petstoreWith(env, [
      'customers',
      'set-plan',
      'big-co',
      'enterprise',
      '--per-minute',
      '3001',
      '--per-day',
      '100000',
      '--aws',
      '--stage',
      'production',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `3000 a minute: its throttle is 50 requests a second (output ${THROTTLE_RATE_OUTPUT} of stack ${STACK_NAMES.production})`,
    );
    const shown = await petstoreWith(env, ['customers', 'show', 'big-co', '--aws']);
    expect(shown.code).toBe(2);
    const accepted = await petstoreWith(env, [
      'customers',
      'set-plan',
      'big-co',
      'enterprise',
      '--per-minute',
      '3000',
      '--per-day',
      '100000',
      '--aws',
      '--stage',
      'production',
    ]);
    expect(accepted.code).toBe(0);
  });

  it('refuses credentials of another account, and another region, than cdk.json pins the stage to', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'petstore-cdk-json-'));
    const cdkJson = (production: object) => {
      const file = path.join(dir, `${randomUUID()}.json`);
      writeFileSync(file, JSON.stringify({ context: { petstore: { production } } }));
      return pathToFileURL(file);
    };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      await expect(resolveTarget('production', true, cdkJson({ account: '111111111111' }))).rejects.toThrow(
        /cdk.json pins production to account 111111111111, but these credentials are for account 123456789012/,
      );
      await expect(resolveTarget('production', true, cdkJson({ region: 'eu-central-1' }))).rejects.toThrow(
        /pins production to eu-central-1, but the AWS region in use is us-east-1: set AWS_REGION=eu-central-1/,
      );
      const target = await resolveTarget('production', true, cdkJson({ account: '123456789012', region: 'us-east-1' }));
      expect(target.deployed).toEqual({
        stack: STACK_NAMES.production,
        account: '123456789012',
        region: 'us-east-1',
        outputs: expect.any(Map), // the stack's outputs, read once (verify --aws takes its ApiUrl from them)
      });
      target.client.destroy();
    } finally {
      restoreEnvironment(saved);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sells nothing to a stack that does not say its throttle (deployed by an earlier version)', async () => {
    throttleOutput = undefined;
    try {
      const result = await petstoreWith(env, ['customers', 'set-plan', 'old-co', 'free', '--aws', '--stage', 'production']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`has no output ${THROTTLE_RATE_OUTPUT}: deploy this version of the stack first`);
    } finally {
      throttleOutput = '50';
    }
  });
});
