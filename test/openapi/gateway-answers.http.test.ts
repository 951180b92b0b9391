/**
 * What openapi.json declares against what each operation answers before it runs: through the local gateway, a body
 * over 16 KiB (the web ACL's 413) and a malformed request (400) on every operation's path and method, each answer
 * held to the document like every answer `call` gets. A status the document leaves out of an operation fails here.
 */
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import { ROUTES } from '../../lib/routes.js';
import { errorBody } from '../support/answer.js';
import { useGateway } from '../support/http.js';
import { expectConformsToOpenApi } from '../support/openapi-conformance.js';
import { answerOfRaw, rawExchange, requestText } from '../support/raw-http.js';

const { url, customer } = useGateway();

/** A request to `path` below /v1 with the default customer's key, written by hand: fetch sends no body on a GET. */
const request = (method: string, path: string, headers: readonly string[], body = '') =>
  requestText(method, `/v1${path}`, [`Authorization: ${customer().authorization}`, ...headers], body);

describe.each(ROUTES.map((route) => [route.operationId, route] as const))('%s', (_id, route) => {
  const path = route.path.replace(/\{[^}]+\}/g, '7');

  it('a body over 16 KiB is 413 PAYLOAD_TOO_LARGE, before the operation, as openapi.json declares', async () => {
    const body = JSON.stringify({ name: 'Big', description: 'x'.repeat(MAX_BODY_BYTES) });
    const answer = answerOfRaw(await rawExchange(url(), request(route.method, path, ['Content-Type: application/json'], body)));
    expect(answer.status).toBe(413);
    expect(errorBody(answer).code).toBe('PAYLOAD_TOO_LARGE');
    expect(answer.headers.get('x-ratelimit-limit'), 'answered before any function ran').toBe('0');
    await expectConformsToOpenApi(route.method, path, answer);
  });

  it('headers over the limit are 400 VALIDATION_FAILED, before the operation, as openapi.json declares', async () => {
    const answer = answerOfRaw(await rawExchange(url(), request(route.method, path, [`X-Big: ${'a'.repeat(20_000)}`])));
    expect(answer.status).toBe(400);
    expect(errorBody(answer).code).toBe('VALIDATION_FAILED');
    await expectConformsToOpenApi(route.method, path, answer);
  });
});
