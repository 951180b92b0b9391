/**
 * What is deployed, run on the Lambda runtime's Node.js major: the bundles `cdk synth` writes (esbuild's output in
 * the cloud assembly's asset folders), each on a Node.js 24 binary (test/support/node24.ts) against DynamoDB Local.
 * The authorizer bundle gets REQUEST events with real keys; every operation's bundle gets REST proxy events that
 * carry the context the authorizer bundle returned, stringified as API Gateway passes it. Each function runs in a
 * process of its own with exactly the environment its template gives it (table names mapped to this file's
 * DynamoDB Local tables), as on Lambda. Every answer must keep the contract and match openapi.json. The authorizer's
 * bundle is also read: it must carry none of the admin CLI's writes (admin-markers.ts).
 * The bundles are those of the run's one `npm run synth` (test/support/cli-synth.ts), production's: the staging
 * functions are the same code with another STAGE.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizerEvent, type ProxyEventInput } from '../../infra/local/events.js';
import { generateKey } from '../../lib/auth/keys.js';
import { createCategory, ROUTES } from '../../lib/routes.js';
import { STACK_NAMES } from '../../lib/stacks.js';
import { type Answer, answerOfResult, successBody } from '../support/answer.js';
import { cliSynth } from '../support/cli-synth.js';
import { readTemplate, resourcesOfType } from '../support/cloudformation.js';
import { contractViolations } from '../support/contract-answer.js';
import { makeCustomer, type TestCustomer, testDb } from '../support/customers.js';
import { deployedVariables } from '../support/deployed-variables.js';
import { proxyEvent } from '../support/events.js';
import { NODE24_VERSION, node24 } from '../support/node24.js';
import { openApiProblems } from '../support/openapi-conformance.js';
import { ADMIN_MODULES, adminMarkers, HISTORY_MOVE_MODULES, historyMoveMarkers } from './admin-markers.js';

const RUNNER = fileURLToPath(new URL('./run-bundle.mjs', import.meta.url));
const run = promisify(execFile);

interface DeployedFunction {
  /** The operationId, "authorizer" or "usageSweep" (the function the schedule runs). */
  name: string;
  bundle: string;
  environment: Record<string, string>;
  timeoutSeconds: number;
  memorySize: number;
}

/** Every function of the production template, with its bundle and its environment as Lambda would set it. */
function deployedFunctions(outdir: string): DeployedFunction[] {
  const template = readTemplate(JSON.parse(readFileSync(path.join(outdir, `${STACK_NAMES.production}.template.json`), 'utf8')));
  // API Gateway names a function's live alias, not the function: follow the alias back to it.
  const aliasesOf = (logicalId: string) =>
    resourcesOfType(template, 'AWS::Lambda::Alias')
      .filter(([, r]) => JSON.stringify(r.Properties?.FunctionName) === JSON.stringify({ Ref: logicalId }))
      .map(([aliasId]) => aliasId);
  const referencing = (type: string, logicalId: string) =>
    resourcesOfType(template, type)
      .filter(([, r]) => aliasesOf(logicalId).some((aliasId) => JSON.stringify(r.Properties).includes(`"${aliasId}"`)))
      .map(([, r]) => r);

  return resourcesOfType(template, 'AWS::Lambda::Function').map(([logicalId, { Properties: props = {} }]) => {
    const method = referencing('AWS::ApiGateway::Method', logicalId)[0];
    const name = referencing('AWS::ApiGateway::Authorizer', logicalId).length
      ? 'authorizer'
      : referencing('AWS::Events::Rule', logicalId).length
        ? 'usageSweep'
        : String(method?.Properties?.OperationName);
    const S3Key = v.parse(v.string(), props.Code?.S3Key);
    const variables = v.parse(v.optional(v.record(v.string(), v.unknown()), {}), props.Environment?.Variables);
    // Table names are references to the stack's tables: this file's local ones.
    const environment = deployedVariables(name, variables, process.env);
    return {
      name,
      bundle: path.join(outdir, `asset.${S3Key.replace(/\.zip$/, '')}`, 'index.mjs'),
      environment,
      timeoutSeconds: Number(props.Timeout),
      memorySize: Number(props.MemorySize),
    };
  });
}

let node = '';
let functions: DeployedFunction[] = [];
let customer: TestCustomer;
const work = mkdtempSync(path.join(tmpdir(), 'petstore-bundles-'));

/** Runs one function's bundle on Node.js 24 with these events, in a fresh process: one cold start, then each event. */
async function invokeBundle(name: string, events: unknown[]) {
  const fn = functions.find((f) => f.name === name);
  if (!fn) throw new Error(`no deployed function ${name}`);
  const eventsFile = path.join(work, `${name}.events.json`);
  const resultsFile = path.join(work, `${name}.results.json`);
  writeFileSync(eventsFile, JSON.stringify(events));
  await run(node, [RUNNER, fn.bundle, eventsFile, resultsFile], {
    env: {
      ...fn.environment,
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'bundle-test',
      AWS_SECRET_ACCESS_KEY: 'bundle-test',
      AWS_LAMBDA_FUNCTION_NAME: name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
      LAMBDA_TIMEOUT_MS: String(fn.timeoutSeconds * 1000),
      LOG_LEVEL: 'WARN',
      TZ: 'UTC',
    },
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const {
    node: version,
    loadedAtImport,
    results,
  } = v.parse(
    v.object({
      node: v.string(),
      loadedAtImport: v.array(v.string()),
      results: v.array(v.object({ result: v.optional(v.unknown()), error: v.optional(v.string()) })),
    }),
    JSON.parse(readFileSync(resultsFile, 'utf8')),
  );
  expect(version, `${name} ran on`).toBe(`v${NODE24_VERSION}`);
  // Builtins are bundled as their CommonJS view (BUILTIN_ALIASES): an ESM import of them would run their lazy
  // getters at import (undici for http, the report module for process, the promises API for timers). Web streams
  // load on first use only: Middy imports them for streamed responses, which no handler gives.
  const unwanted = ['undici', 'internal/process/report', 'timers/promises', 'stream/web', 'webstreams/compression'];
  expect(
    loadedAtImport.filter((module) => unwanted.some((name) => module.includes(name))),
    `${name}: internal modules loaded at import`,
  ).toEqual([]);
  return results.map(({ result, error }, i) => {
    expect(error, `${name}, event ${i}`).toBeUndefined();
    return result;
  });
}

/** A proxy integration's result, as the bundle's handler returned it (through the runner's JSON). */
const HeaderValue = v.union([v.string(), v.number(), v.boolean()]);
const ProxyResultSchema = v.object({
  statusCode: v.number(),
  headers: v.optional(v.record(v.string(), HeaderValue)),
  multiValueHeaders: v.optional(v.record(v.string(), v.array(HeaderValue))),
  body: v.string(),
  isBase64Encoded: v.optional(v.boolean()),
});
const answerOf = (result: unknown): Answer => answerOfResult(v.parse(ProxyResultSchema, result));

/** The authorizer's policy, as the bundle returned it; its context's values are what API Gateway hands on. */
const AuthorizerResultSchema = v.object({
  principalId: v.string(),
  policyDocument: v.object({ Version: v.string(), Statement: v.array(v.looseObject({ Effect: v.string() })) }),
  context: v.optional(v.record(v.string(), HeaderValue)),
});

const authorizerRequest = (authorization: string) => authorizerEvent(proxyEvent({ headers: { Authorization: authorization } }));

/** The context of the authorizer bundle's Allow, as API Gateway hands it to a proxy integration: strings. */
let authorizerContext: Record<string, string> | undefined;
let created: { id: number; name: string } | undefined;

type Case = { input: ProxyEventInput; check: (answer: Answer) => void };
const json = { 'Content-Type': 'application/json' };

/** What each operation is sent and must answer; a route without a case fails the coverage test below. */
const OPERATION_CASES: Record<string, () => Case[]> = {
  createCategory: () => {
    const name = `Bundle ${Math.random().toString(36).slice(2, 10)}`;
    return [
      {
        input: { method: 'POST', path: '/categories', body: JSON.stringify({ name }), headers: json },
        check: (answer) => {
          expect(answer.status).toBe(201);
          expect(answer.body).toEqual({ id: expect.any(Number), name });
          created = successBody(createCategory, answer);
        },
      },
      {
        input: { method: 'POST', path: '/categories', body: JSON.stringify({ name }), headers: json },
        check: (answer) => expect(answer.body).toMatchObject({ code: 'CATEGORY_EXISTS', status: 409 }),
      },
      {
        input: { method: 'POST', path: '/categories', body: '{"name":', headers: json },
        check: (answer) => expect(answer.body).toMatchObject({ code: 'MALFORMED_JSON', status: 400 }),
      },
      // The first request with a key loads the idempotency utility from its own file beside index.mjs, as deployed.
      {
        input: {
          method: 'POST',
          path: '/categories',
          body: JSON.stringify({ name: `${name} keyed` }),
          headers: { ...json, 'Idempotency-Key': name },
        },
        check: (answer) => {
          expect(answer.status).toBe(201);
          expect(answer.headers.has('idempotent-replayed')).toBe(false);
        },
      },
      {
        input: {
          method: 'POST',
          path: '/categories',
          body: JSON.stringify({ name: `${name} keyed` }),
          headers: { ...json, 'Idempotency-Key': name },
        },
        check: (answer) => {
          expect(answer.status).toBe(201);
          expect(answer.headers.get('idempotent-replayed')).toBe('true');
        },
      },
    ];
  },
  listCategories: () => [
    {
      input: { method: 'GET', path: '/categories' },
      check: (answer) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toContainEqual(created);
      },
    },
  ],
  getRateLimitStatus: () => [
    {
      input: { method: 'GET', path: '/rate-limit' },
      check: (answer) => {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ customerId: customer.customerId, plan: 'pro' });
      },
    },
  ],
  getPetById: () => [
    {
      input: { method: 'GET', path: '/pets/1', resource: '/pets/{petId}', pathParameters: { petId: '1' } },
      check: (answer) => {
        const sunset = Date.parse(functions.find((f) => f.name === 'getPetById')?.environment.PETS_SUNSET_AT ?? '');
        expect(answer.status).toBe(Date.now() < sunset ? 501 : 410);
        expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/);
        expect(answer.headers.get('sunset')).toBeTruthy();
      },
    },
  ],
  listStoreOrders: () => [
    {
      input: { method: 'GET', path: '/store/orders' },
      check: (answer) => {
        expect(answer.body).toMatchObject({ code: 'NOT_IMPLEMENTED', status: 501 });
        expect(answer.headers.get('x-api-stability')).toBe('beta');
      },
    },
  ],
};

describe(`the synthesized bundles on Node.js ${NODE24_VERSION} against DynamoDB Local`, () => {
  beforeAll(async () => {
    node = node24();
    functions = deployedFunctions((await cliSynth()).outdir);
    customer = await makeCustomer('pro');
  }, 300_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('the production stack deploys one bundle per route, the authorizer and the usage sweep, and each case here covers one', () => {
    const expected = [...ROUTES.map((r) => r.operationId), 'authorizer', 'usageSweep'].sort();
    expect(functions.map((f) => f.name).sort()).toEqual(expected);
    expect(Object.keys(OPERATION_CASES).sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
  });

  it('the authorizer bundle carries its two reads and none of the admin writes (lib/auth/admin*.ts)', () => {
    const code = (name: string) => readFileSync(functions.find((f) => f.name === name)?.bundle ?? '', 'utf8');
    const authorizer = code('authorizer');
    // The SDK names each command's operation in a string that minifying keeps: the authorizer's GetItem is there,
    // no write is. createCategory's TransactWriteItems shows that the names are found where they are.
    const operations = (bundle: string, names: string[]) => names.filter((name) => bundle.includes(`"${name}"`));
    expect(operations(authorizer, ['GetItem'])).toEqual(['GetItem']);
    expect(operations(code('createCategory'), ['TransactWriteItems'])).toEqual(['TransactWriteItems']);
    expect(operations(authorizer, ['TransactWriteItems', 'UpdateItem', 'PutItem', 'DeleteItem', 'BatchWriteItem'])).toEqual([]);
    // The admin modules' own strings (their update and condition expressions, their messages): none is there.
    const markers = adminMarkers();
    expect(markers.length, `strings found in ${ADMIN_MODULES.join(', ')}`).toBeGreaterThan(15);
    expect(markers.filter((marker) => authorizer.includes(marker))).toEqual([]);
  });

  it('no operation bundle carries an admin write (lib/auth/admin*.ts, the unban of lib/rate-limit/lift-ban.ts)', () => {
    const markers = adminMarkers();
    const operations = functions.filter((f) => f.name !== 'authorizer' && f.name !== 'usageSweep');
    expect(operations.length).toBe(ROUTES.length);
    const carried = operations.flatMap((f) => {
      const bundle = readFileSync(f.bundle, 'utf8');
      return markers.filter((marker) => bundle.includes(marker)).map((marker) => `${f.name}: ${marker}`);
    });
    expect(carried).toEqual([]);
  });

  it("no request's bundle carries the move of finished days to the usage history (lib/usage/day-move.ts, day-sweep.ts): the sweep's does", () => {
    const markers = historyMoveMarkers();
    expect(markers.length, `strings found in ${HISTORY_MOVE_MODULES.join(', ')}`).toBeGreaterThanOrEqual(4);
    const onRequests = functions.filter((f) => f.name !== 'usageSweep');
    expect(onRequests.length).toBe(ROUTES.length + 1);
    const carried = onRequests.flatMap((f) => {
      const bundle = readFileSync(f.bundle, 'utf8');
      return markers.filter((marker) => bundle.includes(marker)).map((marker) => `${f.name}: ${marker}`);
    });
    expect(carried).toEqual([]);
    // The markers are found where they are: the sweep's bundle holds the move's transaction and its own writes.
    const sweep = readFileSync(functions.find((f) => f.name === 'usageSweep')?.bundle ?? '', 'utf8');
    expect(sweep.includes('"TransactWriteItems"')).toBe(true);
    expect(markers.filter((marker) => sweep.includes(marker)).length).toBeGreaterThanOrEqual(3);
  });

  it('usageSweep: moves a finished day from a counter item to the usage history, and says so', async () => {
    const table = process.env.COUNTERS_TABLE ?? '';
    const today = Math.floor(Date.now() / 86_400_000) * 86_400;
    const finished = today - 3 * 86_400;
    const customerId = `sweep-${Math.random().toString(36).slice(2, 10)}`;
    await testDb.send(new PutCommand({ TableName: table, Item: { customerId, [`d${finished}`]: 9, expiresAt: today + 400 * 86_400 } }));
    const [run] = await invokeBundle('usageSweep', [{ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} }]);
    expect(run).toMatchObject({ finished: true, left: 0 });
    const month = new Date(finished * 1000).toISOString().slice(0, 7);
    const day = new Date(finished * 1000).toISOString().slice(8, 10);
    const { Item } = await testDb.send(new GetCommand({ TableName: table, Key: { customerId: `usage#${customerId}#${month}` } }));
    expect(Item?.[`a${day}`]).toBe(9);
  });

  it('authorizer: Allow with the customer, plan and limits for a key; Deny with the reason for others', async () => {
    const [allow, unknown, staging] = (
      await invokeBundle('authorizer', [
        authorizerRequest(customer.authorization),
        authorizerRequest(`Bearer ${generateKey('production')}`),
        authorizerRequest(`Bearer ${generateKey('staging')}`),
      ])
    ).map((result) => v.parse(AuthorizerResultSchema, result));

    expect(allow?.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow', Resource: expect.stringMatching(/\/v1\/\*\/\*$/) });
    expect(allow?.principalId).toBe(customer.customerId);
    expect(allow?.context).toEqual({ customerId: customer.customerId, keyId: customer.keyId, plan: 'pro', perMinute: 300, perDay: 10_000 });
    expect(unknown?.policyDocument.Statement[0]?.Effect).toBe('Deny');
    expect(unknown?.context).toMatchObject({ reason: 'unknown' });
    expect(staging?.context).toMatchObject({ reason: 'other-environment' });

    authorizerContext = Object.fromEntries(
      Object.entries({ principalId: allow?.principalId, ...allow?.context }).map(([key, value]) => [key, String(value)]),
    );
  });

  // In order: the create's category must be in the list.
  it.each(['createCategory', 'listCategories', 'getRateLimitStatus', 'getPetById', 'listStoreOrders'])(
    '%s answers as the contract and openapi.json say',
    async (operationId) => {
      expect(authorizerContext, 'the authorizer bundle ran first').toBeDefined();
      const cases = OPERATION_CASES[operationId]?.();
      if (!cases) throw new Error(`no cases for ${operationId}`);
      const results = await invokeBundle(
        operationId,
        cases.map(({ input }) => proxyEvent({ ...input, authorizer: authorizerContext })),
      );
      for (const [i, { input, check }] of cases.entries()) {
        const answer = answerOf(results[i]);
        expect(contractViolations(answer), `${operationId} #${i}: ${answer.text}`).toEqual([]);
        expect(await openApiProblems(input.method ?? 'GET', input.path ?? '/', answer), `${operationId} #${i}`).toEqual([]);
        check(answer);
      }
    },
  );
});
