/**
 * A DynamoDB that accepts connections and never answers: a local TCP server. The clients are built exactly as on
 * Lambda: no DYNAMODB_ENDPOINT, so the deployed budget applies (not DynamoDB Local's longer timeouts), and the SDK
 * takes the endpoint from AWS_ENDPOINT_URL_DYNAMODB, the way it would take a VPC endpoint. An operation answers 503
 * SERVICE_UNAVAILABLE with Retry-After through its real Middy chain, and the authorizer gives up in time for the
 * local gateway to answer its 503 too; each within its budget, long before its Lambda timeout.
 *
 * The environment is set before the handlers and the gateway are imported, which is why they are imported inside
 * beforeAll; it is restored afterwards.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../infra/local/gateway.js';
import { generateKey } from '../../lib/auth/keys.js';
import { DYNAMO_BUDGETS, LAMBDA_TIMEOUT_MS, worstCaseWaitMs } from '../../lib/dynamo/budget.js';
import { contractViolations, send } from '../support/contract-answer.js';
import { listen } from '../support/listen.js';
import { captureLogs } from '../support/logs.js';

const ENV_KEYS = ['DYNAMODB_ENDPOINT', 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));

let server: Server;
const sockets = new Set<Socket>();
let connections = 0;
let logs: ReturnType<typeof captureLogs> | undefined;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    // Reads the request and never writes a byte back.
  });
  const port = await listen(server);
  delete process.env.DYNAMODB_ENDPOINT;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}`,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'hung-dynamodb-test',
    AWS_SECRET_ACCESS_KEY: 'hung-dynamodb-test',
  });
  logs = captureLogs();
});

afterAll(async () => {
  logs?.stop();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

describe('DynamoDB accepts connections and never answers', () => {
  it('an operation answers 503 SERVICE_UNAVAILABLE with Retry-After, after its attempts, inside its budget', async () => {
    const { handler } = await import('../../functions/create-category.js');
    const { invoke, proxyEvent } = await import('../support/events.js');
    const before = connections;
    const started = performance.now();
    // A new createCategory instance makes two DynamoDB calls side by side, the rate-limit counter and the read of
    // the category id counter (lib/categories/store.ts); each makes its attempts, and the create waits for both.
    const answer = await invoke(
      handler,
      proxyEvent({ method: 'POST', path: '/categories', body: '{"name":"Hung"}', headers: { 'Content-Type': 'application/json' } }),
    );
    const elapsed = performance.now() - started;
    console.log(
      `createCategory with a hung DynamoDB: ${answer.status} after ${(elapsed / 1000).toFixed(2)} s (budget ${worstCaseWaitMs(DYNAMO_BUDGETS.operation) / 1000} s, Lambda timeout ${LAMBDA_TIMEOUT_MS.operation / 1000} s)`,
    );

    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(connections - before).toBe(2 * DYNAMO_BUDGETS.operation.attempts);
    expect(elapsed).toBeLessThan(worstCaseWaitMs(DYNAMO_BUDGETS.operation));
  });

  it('a request through the local gateway gets 503 SERVICE_UNAVAILABLE with Retry-After when the authorizer gives up, inside its budget', async () => {
    const { startGateway } = await import('../../infra/local/gateway.js');
    const gateway: Gateway = await startGateway(0);
    try {
      const before = connections;
      const started = performance.now();
      // A well-formed key with a valid checksum: the authorizer has to look it up.
      const answer = await send(`${gateway.url}/categories`, { headers: { Authorization: `Bearer ${generateKey('production')}` } });
      const elapsed = performance.now() - started;
      console.log(
        `authorizer with a hung DynamoDB: ${answer.status} after ${(elapsed / 1000).toFixed(2)} s (budget ${worstCaseWaitMs(DYNAMO_BUDGETS.authorizer) / 1000} s, Lambda timeout ${LAMBDA_TIMEOUT_MS.authorizer / 1000} s)`,
      );

      expect(contractViolations(answer, new Set([503]))).toEqual([]);
      expect(answer.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(connections - before).toBe(DYNAMO_BUDGETS.authorizer.attempts);
      expect(elapsed).toBeLessThan(worstCaseWaitMs(DYNAMO_BUDGETS.authorizer));
      // The authorizer threw (not a Lambda timeout): the gateway answered AUTHORIZER_CONFIGURATION_ERROR's 503.
      expect((logs?.lines ?? []).some((line) => line.includes('authorizer failed') && line.includes('"reason":"error"'))).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
