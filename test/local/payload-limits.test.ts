/**
 * Large bodies over HTTP through the local gateway, which models what a deployed stage does with them
 * (infra/local/payload-limits.ts): the web ACL refuses a body over 16 KiB with 413 before anything else of API
 * Gateway runs; without it, a body whose event is over Lambda's 6 MB invoke payload would get API Gateway's 500,
 * which is why the web ACL is in front of every stage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyEvent } from '../../infra/local/events.js';
import { type Gateway, startGateway } from '../../infra/local/gateway.js';
import { API_GATEWAY_MAX_HEADER_BYTES, API_GATEWAY_MAX_URL_CHARS } from '../../infra/local/malformed-requests.js';
import { EVENT_BYTES_BESIDE_BODY, LAMBDA_MAX_INVOKE_PAYLOAD_BYTES, overLambdaInvokeLimit } from '../../infra/local/payload-limits.js';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import { type Answer, contractViolations, send } from '../support/contract-answer.js';
import { makeCustomer, type TestCustomer } from '../support/customers.js';
import { expectConformsToOpenApi } from '../support/openapi-conformance.js';

let withAcl: Gateway;
let withoutAcl: Gateway;
let customer: TestCustomer;

beforeAll(async () => {
  [withAcl, withoutAcl, customer] = await Promise.all([startGateway(0), startGateway(0, { webAcl: false }), makeCustomer()]);
});
afterAll(async () => {
  await Promise.all([withAcl?.close(), withoutAcl?.close()]);
});

/** A JSON body of exactly `bytes` bytes: a category whose description fills it. */
const bodyOf = (bytes: number) => {
  const frame = '{"name":"Big","description":""}';
  return `${frame.slice(0, -2)}${'x'.repeat(bytes - frame.length)}"}`;
};

async function post(gateway: Gateway, path: string, body: string, key: string | null = customer.apiKey): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  const answer = await send(`${gateway.url}${path}`, { method: 'POST', body, headers });
  expect(contractViolations(answer, new Set([...[400, 401, 404, 413], 500]))).toEqual([]);
  return answer;
}

/** An answer given before any function ran: no customer is known, so the X-RateLimit headers are the gateway's 0/0/0. */
const beforeAnyFunction = (answer: Answer) => answer.headers.get('x-ratelimit-limit') === '0';

describe('with the web ACL, as every deployed stage has it', () => {
  it('refuses a body of 16 KiB and one byte with 413 PAYLOAD_TOO_LARGE before any function runs', async () => {
    const answer = await post(withAcl, '/categories', bodyOf(MAX_BODY_BYTES + 1));
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(beforeAnyFunction(answer)).toBe(true);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    await expectConformsToOpenApi('POST', '/categories', answer);
  });

  it('refuses it before the authorizer and before routing, as WAF does: without a key, on any path', async () => {
    for (const [path, key] of [
      ['/categories', null],
      ['/no-such-path', customer.apiKey],
    ] as const) {
      const answer = await post(withAcl, path, bodyOf(MAX_BODY_BYTES + 1), key);
      expect(answer.status, path).toBe(413);
      expect(beforeAnyFunction(answer)).toBe(true);
    }
  });

  it('refuses a body of several MB, and one over API Gateway’s 10 MB, with the same 413: never a 5xx', async () => {
    for (const megabytes of [5, 11]) {
      const answer = await post(withAcl, '/categories', bodyOf(megabytes * 1024 * 1024));
      expect(answer.status, `${megabytes} MB`).toBe(413);
      expect(answer.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    }
  });

  it('lets a body of exactly 16 KiB through to the function, which judges it', async () => {
    const answer = await post(withAcl, '/categories', bodyOf(MAX_BODY_BYTES));
    expect(answer.status).toBe(400); // the description is longer than a category's, and the function says so
    expect(beforeAnyFunction(answer)).toBe(false);
  });
});

describe("without the web ACL: Lambda's invoke payload limit", () => {
  it('runs the function for a body whose base64-encoded event stays under 6 MB', async () => {
    const answer = await post(withoutAcl, '/categories', bodyOf(4 * 1024 * 1024));
    expect(answer.status).toBe(413);
    expect(beforeAnyFunction(answer)).toBe(false);
  });

  it('answers a body whose event is over it as API Gateway does when Lambda refuses the invocation: 500, the function never run', async () => {
    const bytes = 5 * 1024 * 1024;
    expect((bytes * 4) / 3).toBeGreaterThan(LAMBDA_MAX_INVOKE_PAYLOAD_BYTES);
    const answer = await post(withoutAcl, '/categories', bodyOf(bytes));
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(beforeAnyFunction(answer)).toBe(true);
  });

  it('serializes every event that could be over it: the largest URL and headers stay within the part it does not measure', () => {
    // Characters JSON escapes (a backslash is two bytes), the URL split between path and query, the headers between
    // Host, User-Agent and one more; the authorizer's context with a long message.
    const escaped = (n: number) => '\\'.repeat(n);
    const third = Math.floor(API_GATEWAY_MAX_HEADER_BYTES / 3) - 16;
    const event = proxyEvent({
      path: `/${escaped(API_GATEWAY_MAX_URL_CHARS / 2)}`,
      query: [['q', escaped(API_GATEWAY_MAX_URL_CHARS / 2)]],
      headers: [
        ['Host', escaped(third)],
        ['User-Agent', escaped(third)],
        ['X-Other', escaped(third)],
      ],
      authorizer: { principalId: customer.customerId, customerId: customer.customerId, message: escaped(1_000) },
    });
    const beside = Buffer.byteLength(JSON.stringify(event), 'utf8');
    expect(beside).toBeLessThanOrEqual(EVENT_BYTES_BESIDE_BODY);
    // With a body that takes it one byte over (the body's quotes replace `null`), the event is measured and refused.
    const body = 'x'.repeat(LAMBDA_MAX_INVOKE_PAYLOAD_BYTES - beside + 3);
    expect(overLambdaInvokeLimit({ ...event, body })).toBe(true);
    expect(overLambdaInvokeLimit({ ...event, body: body.slice(1) })).toBe(false);
    // A sixth as many characters that JSON writes as \u0001, six bytes each: over as well.
    expect(overLambdaInvokeLimit({ ...event, body: '\u0001'.repeat(Math.ceil(body.length / 6)) })).toBe(true);
  });
});
