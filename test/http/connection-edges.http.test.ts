/**
 * How the local gateway treats a connection and a request line at their edges, as API Gateway would: a client that
 * half-closes after its request (`socket.end(request)`, as `nc -N` does) still gets its answer; CONNECT, a method no
 * REST API resource can have, gets the 404 of any method a resource lacks; a URL or header block over API Gateway's
 * limits (10,240 characters, 10,240 bytes) is 400 in the Error shape, just over the limit and not at it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_GATEWAY_MAX_HEADER_BYTES, API_GATEWAY_MAX_URL_CHARS } from '../../infra/local/malformed-requests.js';
import { storedCounts } from '../support/counters.js';
import { makeCustomer } from '../support/customers.js';
import { useGateway } from '../support/http.js';
import { answerOfRaw, rawExchange, requestText } from '../support/raw-http.js';

const { url, customer } = useGateway();

const expectErrorShape = (raw: string, status: number, code: string, message?: RegExp) => {
  const answer = answerOfRaw(raw);
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ code, message: message ? expect.stringMatching(message) : expect.any(String), status });
  expect(answer.headers.get('content-type')).toBe('application/json');
  expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  return answer;
};

describe('a client that half-closes its side after the request', () => {
  it('gets its 201 for a POST, which is stored and counted once', async () => {
    const buyer = await makeCustomer();
    const name = `Half ${randomUUID().slice(0, 8)}`;
    const body = JSON.stringify({ name });
    const raw = await rawExchange(
      url(),
      requestText('POST', '/v1/categories', [`Authorization: ${buyer.authorization}`, 'Content-Type: application/json'], body),
      { halfClose: true },
    );
    const answer = answerOfRaw(raw);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name });
    expect((await storedCounts(buyer.customerId)).day).toBe(1);
  });

  it('gets its 200 for a GET, and an answer for a request the gateway refuses', async () => {
    const get = await rawExchange(url(), requestText('GET', '/v1/categories', [`Authorization: ${customer().authorization}`]), {
      halfClose: true,
    });
    expect(answerOfRaw(get).status).toBe(200);
    expectErrorShape(await rawExchange(url(), requestText('GET', '/v1/nowhere', []), { halfClose: true }), 404, 'NOT_FOUND');
  });

  it('with a body shorter than its Content-Length: 400, not silence', async () => {
    const bytes = 'POST /v1/categories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"name":';
    expectErrorShape(await rawExchange(url(), bytes, { halfClose: true }), 400, 'VALIDATION_FAILED');
  });
});

describe('CONNECT', () => {
  it.each([
    ['to a host', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'],
    ['to a path of the API', 'CONNECT /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
  ])('%s: 404 NOT_FOUND in the Error shape, as any method a resource lacks, and the connection closed', async (_, bytes) => {
    const answer = expectErrorShape(await rawExchange(url(), bytes), 404, 'NOT_FOUND');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});

describe("API Gateway's URL and header limits", () => {
  const authorization = () => `Authorization: ${customer().authorization}`;

  it(`a URL of ${API_GATEWAY_MAX_URL_CHARS} characters is routed; one more is 400 saying the URL is too long`, async () => {
    const target = (length: number) => {
      const base = '/v1/categories?q=';
      return `${base}${'a'.repeat(length - base.length)}`;
    };
    const at = await rawExchange(url(), requestText('GET', target(API_GATEWAY_MAX_URL_CHARS), [authorization()]));
    expect(answerOfRaw(at).status).toBe(200);
    const over = await rawExchange(url(), requestText('GET', target(API_GATEWAY_MAX_URL_CHARS + 1), [authorization()]));
    expectErrorShape(over, 400, 'VALIDATION_FAILED', /^The URL is too long/);
  });

  it('a query repeating one name up to the limit is answered 200; past it, 400; far past it, 400 too', async () => {
    const repeats = (count: number) => `/v1/categories?${Array(count).fill('a').join('&')}`;
    const most = Math.floor((API_GATEWAY_MAX_URL_CHARS - '/v1/categories?a'.length) / 2) + 1;
    expect(repeats(most).length).toBeLessThanOrEqual(API_GATEWAY_MAX_URL_CHARS);
    expect(answerOfRaw(await rawExchange(url(), requestText('GET', repeats(most), [authorization()]))).status).toBe(200);
    const over = await rawExchange(url(), requestText('GET', repeats(most + 1), [authorization()]));
    expectErrorShape(over, 400, 'VALIDATION_FAILED', /^The URL is too long/);
    // Past what the gateway reads at all: its parser refuses it, in the same shape.
    const far = await rawExchange(url(), requestText('GET', repeats(16_000), [authorization()]));
    expectErrorShape(far, 400, 'VALIDATION_FAILED', /^The URL or the headers are too large/);
  });

  it(`headers of ${API_GATEWAY_MAX_HEADER_BYTES} bytes in all are read; one more is 400 saying they are too large`, async () => {
    // Host, Authorization and Connection as requestText sends them, then one header filling the rest.
    const fixed = ['Host: 127.0.0.1', authorization(), 'Connection: close'].reduce((sum, line) => sum + line.length + 2, 0);
    const filler = (bytes: number) => `X-Fill: ${'f'.repeat(bytes - fixed - 'X-Fill: '.length - 2)}`;
    const at = await rawExchange(url(), requestText('GET', '/v1/categories', [authorization(), filler(API_GATEWAY_MAX_HEADER_BYTES)]));
    expect(answerOfRaw(at).status).toBe(200);
    const over = await rawExchange(
      url(),
      requestText('GET', '/v1/categories', [authorization(), filler(API_GATEWAY_MAX_HEADER_BYTES + 1)]),
    );
    expectErrorShape(over, 400, 'VALIDATION_FAILED', /^The request headers are too large/);
  });
});
