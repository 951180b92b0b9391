/**
 * What an operator finds in a function's log group: every line is one JSON object from Powertools' Logger with the
 * Lambda request id, cold start and X-Ray trace id, written by the real handlers through their Middy chains; the
 * level follows Lambda's log level setting (AWS_LAMBDA_LOG_LEVEL) over LOG_LEVEL; and the redaction holds for
 * fields, messages, nested values and errors alike.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as authorizer } from '../../functions/authorizer.js';
import { handler as getPetById } from '../../functions/get-pet-by-id.js';
import { authorizerEvent, lambdaContext, proxyEvent as requestEvent } from '../../infra/local/events.js';
import { generateKey, hashKey } from '../../lib/auth/keys.js';
import { log } from '../../lib/log.js';
import { proxyEvent, TEST_AUTHORIZER } from '../support/events.js';
import { captureLogs } from '../support/logs.js';

vi.hoisted(() => {
  // What Lambda sets for an on-demand instance; without it Powertools never reports a cold start.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  // What Lambda sets for the functions' application log level (INFO, infra/constructs/api-function.ts).
  process.env.AWS_LAMBDA_LOG_LEVEL = 'INFO';
  // Before its sunset, whatever today's date: the deprecated operation logs its calls.
  process.env.PETS_SUNSET_AT = '2099-01-01T00:00:00Z';
});

/** A log line: one JSON object with a level, a message and a timestamp. */
const LineSchema = v.looseObject({ level: v.string(), message: v.string(), timestamp: v.string() });
let logs: ReturnType<typeof captureLogs>;
/** The lines logged so far in this test, each checked to be such an object. */
const linesOf = (captured: { lines: string[] }) => captured.lines.map((line) => v.parse(LineSchema, JSON.parse(line)));
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => {
  logs.stop();
  vi.unstubAllEnvs();
});

const traceId = () => `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/** The authorizer's event for a request to GET /categories, with this Authorization header if any. */
const authorization = (value?: string) => authorizerEvent(requestEvent({ headers: value === undefined ? {} : { Authorization: value } }));

describe('log lines on Lambda', () => {
  it('carry the request id, cold start (first invocation only), function and X-Ray trace id', async () => {
    const invocations = [randomUUID(), randomUUID()];
    const traces = [traceId(), traceId()];
    for (const [i, awsRequestId] of invocations.entries()) {
      // Lambda sets the trace header's environment variable per invocation.
      vi.stubEnv('_X_AMZN_TRACE_ID', `Root=${traces[i]};Parent=53995c3f42cd8ad8;Sampled=1`);
      await authorizer(authorization(), lambdaContext('PetStore-Production-ApiAuthorizer', awsRequestId));
    }
    const lines = linesOf(logs);
    expect(lines.map((l) => l.message)).toEqual(['key refused', 'key refused']);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      function_request_id: invocations[0],
      cold_start: true,
      function_name: 'PetStore-Production-ApiAuthorizer',
      xray_trace_id: traces[0],
      reason: 'missing',
    });
    expect(lines[1]).toMatchObject({ function_request_id: invocations[1], cold_start: false, xray_trace_id: traces[1] });
    for (const line of lines) expect(Date.parse(line.timestamp)).not.toBeNaN();
  });

  it("are written by an operation's Middy chain with the request ids and the customer", async () => {
    const event = proxyEvent({ path: '/pets/7', resource: '/pets/{petId}', pathParameters: { petId: '7' } });
    const awsRequestId = randomUUID();
    const answer = await getPetById(event, lambdaContext('PetStore-Production-ApiGetPetById', awsRequestId));
    expect(answer?.statusCode).toBe(501);
    expect(linesOf(logs)).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'deprecated operation called',
        function_request_id: awsRequestId,
        function_name: 'PetStore-Production-ApiGetPetById',
        cold_start: expect.any(Boolean),
        operationId: 'getPetById',
        customerId: TEST_AUTHORIZER.customerId,
        keyId: TEST_AUTHORIZER.keyId,
      }),
    ]);
  });
});

describe('a Logger built when the first line is written', () => {
  /**
   * A fresh copy of lib/log.ts behind a Middy chain as the functions use it: `logsOn` says which invocations write a
   * line. A function builds its Logger only when something logs (an operation's happy path never does).
   */
  async function invoke(logsOn: readonly number[]) {
    vi.resetModules();
    const fresh = await import('../../lib/log.js');
    const middy = (await import('@middy/core')).default;
    const captured = captureLogs(fresh.setLogSink);
    let invocation = 0;
    const handler = middy(async () => {
      invocation += 1;
      if (logsOn.includes(invocation)) fresh.log.info(`line of invocation ${invocation}`);
    }).use(fresh.logContext());
    const ids: string[] = [];
    for (let i = 0; i < Math.max(...logsOn); i++) {
      ids.push(randomUUID());
      await handler({}, lambdaContext('PetStore-Production-ApiCreateCategory', ids[i] ?? ''));
    }
    return { lines: linesOf(captured), ids };
  }

  it('carries the context of the invocation that builds it, and a cold start only on the first', async () => {
    const first = await invoke([1, 2]);
    expect(first.lines).toEqual([
      expect.objectContaining({ message: 'line of invocation 1', function_request_id: first.ids[0], cold_start: true }),
      expect.objectContaining({ message: 'line of invocation 2', function_request_id: first.ids[1], cold_start: false }),
    ]);
    // Nothing logged on the cold start: the third invocation builds the Logger, and is no cold start.
    const later = await invoke([3, 4]);
    expect(later.lines).toEqual([
      expect.objectContaining({
        message: 'line of invocation 3',
        function_request_id: later.ids[2],
        function_name: 'PetStore-Production-ApiCreateCategory',
        cold_start: false,
      }),
      expect.objectContaining({ message: 'line of invocation 4', function_request_id: later.ids[3], cold_start: false }),
    ]);
  });
});

describe('functions sharing one process, as in the local gateway', () => {
  it('each keep a Logger of their own: one that never logs pays no invocation context, and each has its cold start', async () => {
    vi.resetModules();
    const fresh = await import('../../lib/log.js');
    const { Logger } = await import('@aws-lambda-powertools/logger');
    const middy = (await import('@middy/core')).default;
    const captured = captureLogs(fresh.setLogSink);
    const addContext = vi.spyOn(Logger.prototype, 'addContext');
    const logs = middy(async () => fresh.log.warn('from the first')).use(fresh.logContext());
    const quiet = middy(async () => undefined).use(fresh.logContext());
    const later = middy(async () => fresh.log.warn('from the third')).use(fresh.logContext());
    const ids = Array.from({ length: 3 }, () => randomUUID());
    await logs({}, lambdaContext('PetStore-Production-ApiCreateCategory', ids[0] ?? ''));
    await logs({}, lambdaContext('PetStore-Production-ApiCreateCategory', ids[1] ?? ''));
    for (let i = 0; i < 10; i++) await quiet({}, lambdaContext('PetStore-Production-ApiListCategories', randomUUID()));
    await later({}, lambdaContext('PetStore-Production-ApiGetPetById', ids[2] ?? ''));
    // The first function's two invocations and the third's one: none for the ten that logged nothing.
    expect(addContext).toHaveBeenCalledTimes(3);
    addContext.mockRestore();
    expect(linesOf(captured)).toEqual([
      expect.objectContaining({ message: 'from the first', function_request_id: ids[0], cold_start: true }),
      expect.objectContaining({ message: 'from the first', function_request_id: ids[1], cold_start: false }),
      expect.objectContaining({
        message: 'from the third',
        function_request_id: ids[2],
        function_name: 'PetStore-Production-ApiGetPetById',
        cold_start: true,
      }),
    ]);
  });
});

describe("the local gateway's own lines", () => {
  it("carry no invocation's context, only their own requestId; redacted and at the level set, like every line", async () => {
    vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', '');
    vi.resetModules();
    const fresh = await import('../../lib/log.js');
    const middy = (await import('@middy/core')).default;
    const captured = captureLogs(fresh.setLogSink);
    const handler = middy(async () => fresh.log.warn('line of the invocation')).use(fresh.logContext());
    const invocationId = randomUUID();
    await handler({}, lambdaContext('PetStore-Production-ApiListCategories', invocationId));
    const requestId = randomUUID();
    const key = generateKey('production');
    fresh.gatewayLog.error('gateway failure', { requestId, authorization: `Bearer ${key}` });
    fresh.log.setLogLevel('ERROR');
    fresh.gatewayLog.warn('below the level set');
    const [invocation, gateway, ...rest] = linesOf(captured);
    expect(invocation).toMatchObject({ function_request_id: invocationId });
    expect(gateway).toMatchObject({ message: 'gateway failure', requestId, authorization: '[REDACTED]' });
    for (const field of ['function_request_id', 'function_name', 'cold_start']) expect(gateway).not.toHaveProperty(field);
    expect(rest).toEqual([]);
  });
});

describe('the log level', () => {
  /** A fresh copy of lib/log.ts: Logger reads its level when it is created, as on a cold start. */
  async function freshLogger(env: Record<string, string>) {
    for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
    vi.resetModules();
    const fresh = await import('../../lib/log.js');
    const captured = captureLogs(fresh.setLogSink);
    for (const level of ['debug', 'info', 'warn', 'error'] as const) fresh.log[level](`a ${level} line`);
    return linesOf(captured).map((l) => l.level);
  }

  it("is Lambda's log level setting (AWS_LAMBDA_LOG_LEVEL) when there is one, over LOG_LEVEL", async () => {
    expect(await freshLogger({ AWS_LAMBDA_LOG_LEVEL: 'WARN', LOG_LEVEL: 'DEBUG' })).toEqual(['WARN', 'ERROR']);
  });

  it('lets Lambda ask for more than LOG_LEVEL too', async () => {
    expect(await freshLogger({ AWS_LAMBDA_LOG_LEVEL: 'DEBUG', LOG_LEVEL: 'ERROR' })).toEqual(['DEBUG', 'INFO', 'WARN', 'ERROR']);
  });

  it('is LOG_LEVEL without a Lambda setting, and INFO without either', async () => {
    expect(await freshLogger({ AWS_LAMBDA_LOG_LEVEL: '', LOG_LEVEL: 'ERROR' })).toEqual(['ERROR']);
    expect(await freshLogger({ AWS_LAMBDA_LOG_LEVEL: '', LOG_LEVEL: '' })).toEqual(['INFO', 'WARN', 'ERROR']);
  });
});

describe('redaction', () => {
  it('removes keys, key hashes and Authorization values from fields, messages, nested values and errors', () => {
    const key = generateKey('production');
    const other = generateKey('staging');
    log.warn(`refused ${key}`, {
      authorization: `Bearer ${key}`,
      headers: { Authorization: `Basic ${Buffer.from(key).toString('base64')}`, 'X-Other': other },
      lookup: { keyHash: hashKey(key), attempts: [hashKey(other)] },
      error: new Error(`GetItem failed for ${key}`),
    });
    log.error('unhandled error', new TypeError(`bad input ${other}`));
    const lines = linesOf(logs);
    const all = JSON.stringify(lines);
    expect(lines).toHaveLength(2);
    for (const secret of [key, other]) {
      expect(all).not.toContain(secret.slice(9));
      expect(all).not.toContain(hashKey(secret));
    }
    expect(all).not.toContain(Buffer.from(key).toString('base64'));
    expect(lines[0]).toMatchObject({
      message: 'refused pet_[REDACTED]',
      authorization: '[REDACTED]',
      headers: { Authorization: '[REDACTED]' },
    });
    expect(lines[1]).toMatchObject({ error: { name: 'TypeError', message: 'bad input pet_[REDACTED]' } });
  });
});
