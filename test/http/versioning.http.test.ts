/**
 * Versioning and stability over HTTP: the deprecated GET /pets/{petId} sends Deprecation, Sunset and Link on every
 * answer of its operation (not on those the gateway gives for the whole API) and 410 after its sunset; non-stable operations send X-API-Stability; all of it follows the route table.
 */
import { afterEach, assert, describe, expect, it } from 'vitest';
import { resetClock, setClock } from '../../lib/clock.js';
import { config } from '../../lib/config.js';
import { deprecationDates } from '../../lib/deprecation.js';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import { getPetById, ROUTES, type Route } from '../../lib/routes.js';
import { errorBody } from '../support/answer.js';
import { type Answer, useGateway } from '../support/http.js';
import { expectConformsToOpenApi } from '../support/openapi-conformance.js';
import { answerOfRaw, rawExchange, requestText } from '../support/raw-http.js';

const { call, url, customer } = useGateway();

/** A GET written by hand, for what fetch will not send: a body on a GET, headers over the gateway's limit. */
async function raw(path: string, headers: readonly string[], body = ''): Promise<Answer> {
  const text = requestText('GET', `/v1${path}`, [`Authorization: ${customer().authorization}`, ...headers], body);
  return answerOfRaw(await rawExchange(url(), text));
}
const { deprecatedAt, sunsetAt, docsUrl } = deprecationDates(getPetById.deprecation ?? assert.fail('getPetById is deprecated'), config());

afterEach(() => resetClock());

function expectDeprecationHeaders(answer: Answer) {
  expect(answer.headers.get('deprecation')).toBe(`@${Math.floor(deprecatedAt.getTime() / 1000)}`);
  expect(answer.headers.get('sunset')).toBe(sunsetAt.toUTCString());
  expect(answer.headers.get('link')).toBe(`<${docsUrl}>; rel="deprecation"; type="text/html"`);
}

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ code, message: expect.any(String), status });
}

describe('GET /v1/pets/{petId} (deprecated)', () => {
  it('answers 501 NOT_IMPLEMENTED, saying the specification does not define a pet, with the deprecation headers', async () => {
    const answer = await call('/pets/1');
    expectError(answer, 501, 'NOT_IMPLEMENTED');
    expect(errorBody(answer).message).toMatch(/not implemented/);
    expectDeprecationHeaders(answer);
  });

  it.each(['abc', '0', '-1', '1.5', '01', '%20'])(
    'petId "%s" gets 400 VALIDATION_FAILED, still with the deprecation headers',
    async (petId) => {
      const answer = await call(`/pets/${petId}`);
      expectError(answer, 400, 'VALIDATION_FAILED');
      expect(errorBody(answer).message).toMatch(/"petId" must be a positive integer/);
      expectDeprecationHeaders(answer);
    },
  );

  it('answers 410 GONE after the sunset date, with the deprecation headers', async () => {
    setClock(() => sunsetAt.getTime() + 1_000);
    const answer = await call('/pets/1');
    expectError(answer, 410, 'GONE');
    expectDeprecationHeaders(answer);
  });

  it('still answers 501 one second before the sunset', async () => {
    setClock(() => sunsetAt.getTime() - 1_000);
    expectError(await call('/pets/1'), 501, 'NOT_IMPLEMENTED');
  });

  it.each<[string, number, string, (path: string) => Promise<Answer>]>([
    ['no key (401)', 401, 'UNAUTHORIZED', (path) => call(path, { key: null })],
    ['a body over 16 KiB (413)', 413, 'PAYLOAD_TOO_LARGE', (path) => raw(path, [], 'x'.repeat(MAX_BODY_BYTES + 1))],
    ['headers over the limit (400)', 400, 'VALIDATION_FAILED', (path) => raw(path, [`X-Big: ${'a'.repeat(20_000)}`])],
  ])(
    'the gateway answers %s for the whole API before it knows the operation: without the deprecation headers, as documented',
    async (_, status, code, send) => {
      const answer = await send('/pets/7');
      expectError(answer, status, code);
      expect(answer.headers.get('x-ratelimit-limit'), 'no function ran').toBe('0');
      for (const name of ['deprecation', 'sunset', 'link']) expect(answer.headers.get(name), name).toBeNull();
      await expectConformsToOpenApi('GET', '/pets/7', answer);
    },
  );

  it('the Sunset header is an HTTP-date no earlier than the Deprecation date', async () => {
    const answer = await call('/pets/7');
    const sunset = Date.parse(answer.headers.get('sunset') ?? '');
    const deprecation = Number(answer.headers.get('deprecation')?.slice(1)) * 1000;
    expect(answer.headers.get('sunset')).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(sunset).toBeGreaterThanOrEqual(deprecation);
  });
});

describe('GET /v1/store/orders (beta)', () => {
  it('answers 501 NOT_IMPLEMENTED with X-API-Stability: beta and no deprecation headers', async () => {
    const answer = await call('/store/orders');
    expectError(answer, 501, 'NOT_IMPLEMENTED');
    expect(errorBody(answer).message).toMatch(/not implemented/);
    expect(answer.headers.get('x-api-stability')).toBe('beta');
    expect(answer.headers.get('deprecation')).toBeNull();
  });
});

describe('stability and deprecation headers follow the route table', () => {
  const sample = (route: Route) => route.path.replace(/\{[^}]+\}/g, '1');
  const routes = ROUTES;
  it.each(routes.map((route) => [route.operationId, route] as const))(
    '%s sends X-API-Stability only when not stable, and Deprecation only when deprecated',
    async (_id, route) => {
      const init: RequestInit = route.body
        ? {
            method: route.method,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ name: `Probe ${route.operationId}` }),
          }
        : { method: route.method };
      const answer = await call(sample(route), init);
      expect(answer.headers.get('x-api-stability')).toBe(route.stability === 'stable' ? null : route.stability);
      expect(answer.headers.has('deprecation')).toBe(Boolean(route.deprecation));
      expect(answer.headers.has('sunset')).toBe(Boolean(route.deprecation));
    },
  );
});
