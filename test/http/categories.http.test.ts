/** The categories API over HTTP through the local gateway: statuses, Error bodies and headers as the contract says. */
import { describe, expect, it } from 'vitest';
import { useGateway } from '../support/http.js';

const { call, url } = useGateway();
const post = (body: string, contentType = 'application/json') =>
  call('/categories', { method: 'POST', body, headers: { 'Content-Type': contentType } });

function expectError(answer: { status: number; headers: Headers; body: unknown }, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.body).toEqual({ code, message: expect.any(String), status });
}

describe('GET /v1/categories over HTTP', () => {
  it('answers 200 with a JSON array and a request id', async () => {
    const answer = await call('/categories');
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.body)).toBe(true);
    expect(answer.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('POST /v1/categories over HTTP', () => {
  it('creates, then lists what it created', async () => {
    const created = await post('{"name":"Tortoise","description":"Slow"}');
    expect(created.status).toBe(201);
    const listed = (await call('/categories')).body;
    expect(listed).toContainEqual(created.body);
  });

  it('413 for a body over 16 KiB, 400 for broken JSON, 415 for text/plain', async () => {
    expectError(await post(JSON.stringify({ name: 'x', description: 'y'.repeat(20_000) })), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await post('{"name":'), 400, 'MALFORMED_JSON');
    expectError(await post('{"name":"Cat"}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body of several megabytes gets 413 without being stored', async () => {
    expectError(await post(`{"name":"${'z'.repeat(3 * 1024 * 1024)}"}`), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('unknown paths and methods', () => {
  it.each([
    ['GET', '/nothing-here'],
    ['GET', '/categories/1'],
    ['DELETE', '/categories'],
    ['PUT', '/categories'],
    ['GET', '/pets'],
  ])('%s /v1%s gives 404 NOT_FOUND', async (method, path) => {
    expectError(await call(path, { method }), 404, 'NOT_FOUND');
  });

  it.each(['/categories', '/', '/v2/categories', '/v1'])('GET %s (outside the /v1 operations) gives 404 NOT_FOUND', async (path) => {
    const response = await fetch(new URL(path, url()));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'NOT_FOUND', message: expect.any(String), status: 404 });
  });
});
