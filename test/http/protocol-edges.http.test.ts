/**
 * Odd input and protocol edges (issue 14), on the handler and through the local gateway: nothing stored that is
 * not well-formed Unicode, one media type, one Authorization header, the headers RFC 9110/6750 and OWASP ask for,
 * trailing slashes and petId as API Gateway and the document say, and the gateway's own parser errors in the Error
 * shape. Every answer through `call` is also checked against openapi.json.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { handler as authorizer } from '../../functions/authorizer.js';
import { handler as create } from '../../functions/create-category.js';
import { handler as listStoreOrders } from '../../functions/list-store-orders.js';
import { authorizerEvent, lambdaContext } from '../../infra/local/events.js';
import { CategorySchema } from '../../lib/categories/schema.js';
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE } from '../../lib/http/answer-headers.js';
import { sentHeaders } from '../support/answer.js';
import { invoke, proxyEvent } from '../support/events.js';
import { useGateway } from '../support/http.js';
import { captureLogs } from '../support/logs.js';
import { answerOfRaw, rawExchange, requestText } from '../support/raw-http.js';

const { call, url, customer } = useGateway();

const LONE = '{"name":"Lone \\ud800 surrogate"}';
/** "Café" with é as ISO-8859-1 (0xE9): not UTF-8. */
const LATIN1 = Buffer.from([...Buffer.from('{"name":"Caf'), 0xe9, ...Buffer.from('"}')]);

const post = (body: string | Buffer, contentType = 'application/json') =>
  call('/categories', { method: 'POST', body, headers: { 'Content-Type': contentType } });

/** A POST event as API Gateway passes it with every media type binary: the body's bytes, base64-encoded. */
const binaryPost = (bytes: Buffer | string, contentType = 'application/json') =>
  proxyEvent({
    method: 'POST',
    path: '/categories',
    body: Buffer.from(bytes).toString('base64'),
    isBase64Encoded: true,
    headers: { 'Content-Type': contentType },
  });

/** Every category name listed, read as strict UTF-8: a stored lone surrogate or U+FFFD would show here. */
async function listedNames(): Promise<string[]> {
  const response = await fetch(`${url()}/categories`, { headers: { Authorization: customer().authorization } });
  const text = new TextDecoder('utf-8', { fatal: true }).decode(await response.arrayBuffer());
  return v.parse(v.array(CategorySchema), JSON.parse(text)).map((c) => c.name);
}

/** One request through node:http, which sends each value of an array header as its own line. */
function rawRequest(
  path: string,
  headers: Record<string, string | string[]>,
): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url()}${path}`, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('nothing is stored that is not well-formed Unicode', () => {
  it('a lone surrogate in a field is 400 VALIDATION_FAILED naming the field, on the handler and over HTTP', async () => {
    for (const [field, body] of [
      ['name', LONE],
      ['description', '{"name":"Fine","description":"x\\udc00y"}'],
    ] as const) {
      const answer = await invoke(create, binaryPost(body));
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(new RegExp(`^"${field}".*lone surrogate \\(U\\+D[8C]00\\)`)),
      });
    }
    const http = await post(LONE);
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('"name"') });
    expect(await listedNames()).not.toContain('Lone \ud800 surrogate');
  });

  it('a surrogate pair spelled with escapes is one character and is stored', async () => {
    const answer = await post('{"name":"Dog \\ud83d\\udc15"}');
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: 'Dog 🐕' });
  });

  it('a body that is not valid UTF-8 is 400 MALFORMED_JSON, on the handler and over HTTP, and stores nothing', async () => {
    const answer = await invoke(create, binaryPost(LATIN1));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'MALFORMED_JSON', message: expect.stringMatching(/UTF-8/) });
    const http = await post(LATIN1);
    expect(http.status).toBe(400);
    expect(http.body).toMatchObject({ code: 'MALFORMED_JSON', message: expect.stringMatching(/UTF-8/) });
    expect((await listedNames()).some((name) => name.startsWith('Caf'))).toBe(false);
  });

  it('a charset other than UTF-8 is 415; charset=utf-8 in any case or quoted is fine', async () => {
    for (const charset of ['iso-8859-1', 'utf-16', 'us-ascii']) {
      const answer = await invoke(create, binaryPost(LATIN1, `application/json; charset=${charset}`));
      expect(answer.status, charset).toBe(415);
      expect(answer.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining(charset) });
    }
    expect((await post(LATIN1, 'application/json; charset=iso-8859-1')).status).toBe(415);
    expect((await post('{"name":"Charset upper"}', 'application/json; charset=UTF-8')).status).toBe(201);
    expect((await post('{"name":"Charset quoted"}', 'application/json;charset="utf-8"')).status).toBe(201);
  });
});

describe('media types: application/json only, as the document says', () => {
  it.each(['application/vnd.api+json', 'application/problem+json', 'application/merge-patch+json', 'text/json'])(
    '%s is 415 UNSUPPORTED_MEDIA_TYPE on the handler and over HTTP',
    async (type) => {
      expect((await invoke(create, binaryPost('{"name":"Suffix"}', type))).status).toBe(415);
      const http = await post('{"name":"Suffix"}', type);
      expect(http.status).toBe(415);
      expect(http.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    },
  );
});

describe('more than one Authorization header is 401, saying so', () => {
  it('through the local gateway, even when both carry the same valid key, whatever the names’ case', async () => {
    for (const values of [
      [customer().authorization, 'Bearer pet_live_other'],
      [customer().authorization, customer().authorization],
    ]) {
      const answer = await rawRequest('/categories', { Authorization: values });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        code: 'UNAUTHORIZED',
        message: expect.stringMatching(/More than one Authorization header/),
        status: 401,
      });
      expect(answer.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    }
    const { port } = new URL(url());
    const raw = await rawExchange(
      url(),
      `GET /v1/categories HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${customer().authorization}\r\nauthorization: ${customer().authorization}\r\nConnection: close\r\n\r\n`,
    );
    expect(answerOfRaw(raw)).toMatchObject({ status: 401, body: { message: expect.stringMatching(/More than one Authorization header/) } });
  });

  it('by the authorizer, which sees multiValueHeaders', async () => {
    const event = authorizerEvent(
      proxyEvent({
        headers: [
          ['Authorization', customer().authorization],
          ['Authorization', customer().authorization],
        ],
      }),
    );
    const result = await authorizer(event, lambdaContext('authorizer', 'test'));
    expect(result.policyDocument.Statement[0]?.Effect).toBe('Deny');
    expect(result.context).toMatchObject({ reason: 'repeated', message: expect.stringMatching(/More than one Authorization header/) });
  });

  it('by the operation too, should API Gateway reuse an Allow it cached for one of the values', async () => {
    const event = proxyEvent({
      path: '/store/orders',
      headers: [
        ['Authorization', 'Bearer a'],
        ['Authorization', 'Bearer b'],
      ],
    });
    const answer = await invoke(listStoreOrders, event);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/More than one Authorization header/) });
    expect(answer.headers.get('WWW-Authenticate')).toBe(INVALID_TOKEN_CHALLENGE);
  });
});

describe('every 401 carries WWW-Authenticate (RFC 9110), in RFC 6750 form', () => {
  it('without error when no key was sent', async () => {
    const answer = await call('/categories', { key: null });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(BEARER_CHALLENGE);
    expect(BEARER_CHALLENGE).toMatch(/^Bearer realm="[^"]+"$/);
  });

  it('with error="invalid_token" when a key was sent and refused', async () => {
    for (const authorization of ['Bearer nonsense', 'Bearer pet_live_000000000000000000000000000000000000', 'Basic dXNlcjpwYXNz']) {
      const answer = await call('/rate-limit', { headers: { Authorization: authorization } });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(`${BEARER_CHALLENGE}, error="invalid_token"`);
    }
  });
});

describe('Authorization syntax: "Bearer", one or more spaces (U+0020), the key (RFC 6750)', () => {
  it('a tab or a no-break space after Bearer is 401 saying so; two spaces are fine', async () => {
    const key = customer().apiKey;
    expect((await call('/rate-limit', { headers: { Authorization: `Bearer  ${key}` } })).status).toBe(200);
    // Written as bytes: a tab, and U+00A0 as one byte (ISO-8859-1, as a field value is read) and as UTF-8.
    for (const separator of ['\t', '\u00a0', '\u00c2\u00a0']) {
      const raw = await rawExchange(url(), requestText('GET', '/v1/rate-limit', [`Authorization: Bearer${separator}${key}`]));
      const answer = answerOfRaw(raw);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(answer.headers.get('www-authenticate')).toBe(INVALID_TOKEN_CHALLENGE);
    }
    const tab = answerOfRaw(await rawExchange(url(), requestText('GET', '/v1/rate-limit', [`Authorization: Bearer\t${key}`])));
    expect(tab.body).toMatchObject({ message: expect.stringMatching(/spaces \(U\+0020\) only/) });
  });
});

describe('no-store and nosniff', () => {
  it('on every answer: operations, errors and the gateway’s own', async () => {
    const answers = [
      await call('/categories'),
      await call('/rate-limit'),
      await post('{"name":"No store"}'),
      await post('{"name":'),
      await call('/store/orders'),
      await call('/categories', { key: null }),
      await call('/nowhere'),
    ];
    for (const answer of answers) {
      expect(answer.headers.get('cache-control'), String(answer.status)).toBe('no-store');
      expect(answer.headers.get('x-content-type-options'), String(answer.status)).toBe('nosniff');
    }
  });

  it('on a handler’s answer, before any gateway', async () => {
    const answer = await invoke(create, binaryPost('{"name":'));
    expect(sentHeaders(answer)).toMatchObject({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  });
});

describe('paths as API Gateway REST APIs match them, and as the document says', () => {
  it('a single trailing slash is ignored; two are not', async () => {
    expect((await call('/categories/')).status).toBe(200);
    expect((await call('/pets/7/')).status).toBe(501);
    expect((await call('/categories//')).status).toBe(404);
  });

  it('petId is any int64 from 1: 19 digits up to 9223372036854775807, nothing above, no leading zeros', async () => {
    expect((await call('/pets/1234567890123456789')).status).toBe(501);
    expect((await call('/pets/9223372036854775807')).status).toBe(501);
    for (const id of ['9223372036854775808', '99999999999999999999', '0', '007']) {
      const answer = await call(`/pets/${id}`);
      expect(answer.status, id).toBe(400);
      expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('"petId"') });
    }
  });
});

describe("methods API Gateway has no operation for, and the local gateway's parser errors", () => {
  it('HEAD and OPTIONS get the 404 NOT_FOUND of a method the resource lacks (HEAD without a body)', async () => {
    const head = await fetch(`${url()}/categories`, { method: 'HEAD', headers: { Authorization: customer().authorization } });
    expect(head.status).toBe(404);
    expect(head.headers.get('x-request-id')).toBeTruthy();
    expect(await head.text()).toBe('');
    const options = await call('/categories', { method: 'OPTIONS' });
    expect(options.status).toBe(404);
    expect(options.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it.each<[string, string, number, string]>([
    ['a method Node does not know', 'FOO /v1/categories HTTP/1.1\r\nHost: x\r\n\r\n', 404, 'NOT_FOUND'],
    // An origin-form target is a path, `//` included: `//x/v1/categories` is not host x's /v1/categories.
    ['a target that is only two slashes', 'GET // HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 404, 'NOT_FOUND'],
    ['two slashes, a name and a route', 'GET //x/v1/categories HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 404, 'NOT_FOUND'],
    ['the same with a bad port', 'GET //x:99999/v1/categories HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 404, 'NOT_FOUND'],
    ['a garbage request line', 'GARBAGE\r\n\r\n', 400, 'VALIDATION_FAILED'],
    ['a broken HTTP version', 'GET /v1/categories XTTP/1.1\r\nHost: x\r\n\r\n', 400, 'VALIDATION_FAILED'],
    [
      'headers over Node’s limit',
      `GET /v1/categories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      400,
      'VALIDATION_FAILED',
    ],
    [
      'both Transfer-Encoding and Content-Length',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'VALIDATION_FAILED',
    ],
  ])('%s: %s in the Error shape with X-Request-Id', async (_, bytes, status, code) => {
    const answer = answerOfRaw(await rawExchange(url(), bytes));
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ code, message: expect.any(String), status });
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each<[string, string, RegExp]>([
    ['no Host header', 'GET /v1/categories HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n', /^The Host header is missing/],
    ['no Host header, on a path outside the stage', 'GET /docs HTTP/1.1\r\n\r\n', /^The Host header is missing/],
    [
      'two Host headers',
      'GET /v1/categories HTTP/1.1\r\nHost: a\r\nhost: b\r\nAuthorization: Bearer x\r\n\r\n',
      /^More than one Host header was sent/,
    ],
    ['two Host headers on HTTP/1.0', 'GET /v1/categories HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n', /^More than one Host header was sent/],
  ])('%s: 400 VALIDATION_FAILED in the Error shape, and the connection closed (RFC 9112, 3.2)', async (_, bytes, message) => {
    const answer = answerOfRaw(await rawExchange(url(), bytes));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'VALIDATION_FAILED', message: expect.stringMatching(message), status: 400 });
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('connection')).toBe('close');
  });

  it('an HTTP/1.0 request may leave Host out, and is routed', async () => {
    const answer = answerOfRaw(
      await rawExchange(url(), `GET /v1/categories HTTP/1.0\r\nAuthorization: ${customer().authorization}\r\n\r\n`),
    );
    expect(answer.status).toBe(200);
  });

  it.each<[string, string, RegExp]>([
    [
      'Content-Length, then Transfer-Encoding',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      /send either Content-Length or Transfer-Encoding: chunked, not both$/,
    ],
    [
      'Transfer-Encoding, then Content-Length',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
      /send either Content-Length or Transfer-Encoding: chunked, not both$/,
    ],
    [
      'a negative Content-Length',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      /^The Content-Length header is not valid/,
    ],
    [
      'a Content-Length that is no number',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      /^The Content-Length header is not valid/,
    ],
    [
      'two Content-Length headers',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab',
      /^The Content-Length header is not valid/,
    ],
    [
      'Transfer-Encoding: gzip alone',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n',
      /^The Transfer-Encoding is not supported/,
    ],
    [
      'chunked before another coding',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n',
      /^The Transfer-Encoding is not supported/,
    ],
    [
      'a chunk size that is no hexadecimal number',
      'POST /v1/categories HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n',
      /^The chunked request body is malformed/,
    ],
  ])('a body length refused for %s: 400 VALIDATION_FAILED saying what is wrong with it', async (_, bytes, message) => {
    const answer = answerOfRaw(await rawExchange(url(), bytes));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'VALIDATION_FAILED', message: expect.stringMatching(message), status: 400 });
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/** Sends a POST's headers with Expect: 100-continue and part of its body, then drops the connection once the gateway has taken the request. */
function abortedUpload(): Promise<void> {
  const { port } = new URL(url());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write('POST /v1/categories HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n'),
    );
    socket.once('data', () => {
      socket.write('{"na');
      socket.destroy();
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

describe("the local gateway's own log lines", () => {
  const LogLine = v.looseObject({ message: v.string(), level: v.string(), requestId: v.optional(v.string()) });

  it("carry the broken-off request's id, never the previous request's, at WARN: a body the parser refuses, an aborted upload", async () => {
    const logs = captureLogs();
    const lines = () => logs.lines.map((line) => v.parse(LogLine, JSON.parse(line)));
    const failures = () => lines().filter((line) => line.message === 'request not received whole');
    try {
      const previous = await call('/categories');
      expect(previous.status).toBe(200);
      const previousId = previous.headers.get('x-request-id') ?? '';
      const refused = answerOfRaw(
        await rawExchange(url(), 'POST /v1/categories HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n'),
      );
      expect(refused.status).toBe(400);
      // The id the client was answered with, on the line of the request it belongs to.
      await vi.waitFor(() => expect(failures().map((line) => line.requestId)).toContain(refused.headers.get('x-request-id')));
      const before = failures().length;
      await abortedUpload();
      await vi.waitFor(() => expect(failures().length).toBeGreaterThan(before));
      for (const line of failures()) {
        expect(line.requestId).toMatch(/^[0-9a-f-]{36}$/);
        expect(line).not.toHaveProperty('function_request_id');
        expect(JSON.stringify(line)).not.toContain(previousId);
        expect(line.level).toBe('WARN');
      }
      // The client broke the request off: no ERROR line says the gateway failed.
      expect(lines().filter((line) => line.message === 'gateway failure')).toEqual([]);
    } finally {
      logs.stop();
    }
  });
});
