/**
 * openapi.json: up to date with the route table and schemas, valid against the OpenAPI 3.1 schema, and saying
 * what the contract says; and the conformance check that every HTTP test runs really refuses what it should.
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import * as v from 'valibot';
import { assert, describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES, WEB_ACL_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { ERROR_STATUS } from '../../lib/http/error-codes.js';
import { GATEWAY_HEADERS } from '../../lib/openapi/answers.js';
import { committedDocumentText } from '../../lib/openapi/committed.js';
import { API_VERSION, buildOpenApiDocument } from '../../lib/openapi/document.js';
import { createCategory, listCategories, ROUTES, type Route } from '../../lib/routes.js';
import { OPENAPI_PATH, openApiProblems } from '../support/openapi-conformance.js';

/** A reference to a component. */
const RefSchema = v.strictObject({ $ref: v.string() });
/** A response, as far as these tests read it (loose: what else it holds is the validator's business). */
const ResponseSchema = v.looseObject({
  description: v.optional(v.string()),
  headers: v.record(v.string(), v.looseObject({ $ref: v.optional(v.string()), required: v.optional(v.boolean()) })),
  content: v.optional(v.record(v.string(), v.looseObject({ schema: v.optional(v.unknown()) }))),
});
type Response = v.InferOutput<typeof ResponseSchema>;
const OperationSchema = v.looseObject({
  operationId: v.string(),
  deprecated: v.optional(v.boolean()),
  description: v.optional(v.string()),
  'x-stability': v.string(),
  'x-sunset': v.optional(v.string()),
  parameters: v.optional(
    v.array(v.looseObject({ name: v.string(), in: v.string(), required: v.boolean(), schema: v.record(v.string(), v.unknown()) })),
  ),
  requestBody: v.optional(v.looseObject({ description: v.string(), content: v.record(v.string(), v.looseObject({ schema: RefSchema })) })),
  responses: v.record(v.string(), v.union([RefSchema, ResponseSchema])),
});
const Link = v.looseObject({ name: v.string(), url: v.string() });
/** openapi.json, as far as these tests read it; parsing it checks each part they rely on is there, of its type. */
const DocSchema = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({ version: v.string(), description: v.string(), contact: v.optional(Link), license: v.optional(Link) }),
  servers: v.array(v.looseObject({ url: v.string(), description: v.string() })),
  security: v.array(v.record(v.string(), v.array(v.string()))),
  paths: v.record(v.string(), v.record(v.string(), OperationSchema)),
  components: v.looseObject({
    securitySchemes: v.record(v.string(), v.looseObject({ type: v.string(), scheme: v.string(), bearerFormat: v.string() })),
    schemas: v.record(
      v.string(),
      v.looseObject({
        properties: v.optional(v.record(v.string(), v.looseObject({ enum: v.optional(v.array(v.string())) }))),
        additionalProperties: v.optional(v.unknown()),
      }),
    ),
    headers: v.record(v.string(), v.looseObject({ required: v.optional(v.boolean()) })),
    responses: v.record(v.string(), ResponseSchema),
  }),
});

const text = readFileSync(OPENAPI_PATH, 'utf8');
const doc = v.parse(DocSchema, JSON.parse(text));
function operation(route: Route) {
  const found = doc.paths[route.path]?.[route.method.toLowerCase()];
  assert.isDefined(found, `${route.method} ${route.path} is in the document`);
  return found;
}
/** A response, its $ref to components.responses followed. */
function resolved(response: Response | v.InferOutput<typeof RefSchema>): Response {
  if (!v.is(RefSchema, response)) return response;
  const target = doc.components.responses[response.$ref.split('/').at(-1) ?? ''];
  assert.isDefined(target, `${response.$ref} is in components.responses`);
  return target;
}
/**
 * What API Gateway and WAF answer for the whole API, from the tables the stack and the local gateway answer from:
 * every operation can get each of these, whatever the document's generator thinks the operation does.
 */
const GATEWAY_WIDE = [...Object.values(GATEWAY_RESPONSES), ...Object.values(WEB_ACL_RESPONSES)];

function routeOf(found: (route: Route) => boolean): Route {
  const route = ROUTES.find(found);
  assert.isDefined(route);
  return route;
}

describe('openapi.json', () => {
  it('is what `npm run openapi` writes now (run it after changing routes or schemas)', () => {
    expect(text, 'openapi.json is stale: run `npm run openapi` and commit the result').toBe(committedDocumentText());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(text);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the schema check refuses a broken document', async () => {
    const broken = v.parse(v.looseObject({ paths: v.record(v.string(), v.record(v.string(), v.unknown())) }), JSON.parse(text));
    broken.paths['/categories'] = { ...broken.paths['/categories'], get: { responses: 'none' } };
    expect((await new Validator().validate(JSON.stringify(broken))).valid).toBe(false);
  });

  it('is interface version 1.2.0 (1.0.0 plus the compatible additions of docs/api.md, "Versioning"), with contact and licence', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(API_VERSION).toBe('1.2.0');
    expect(doc.info.version).toBe('1.2.0');
    expect(doc.info.contact).toMatchObject({ name: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    expect(doc.info.license).toMatchObject({ name: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
  });

  it('lists the local production and staging servers under /v1, local production first in the committed file', () => {
    const urls = doc.servers.map((s) => s.url);
    expect(urls.slice(0, 2)).toEqual(['http://localhost:3000/v1', 'http://localhost:3001/v1']);
    for (const url of urls) expect(url).toMatch(/\/v1$/);
  });

  it.each([
    ['staging on its default port', 'http://localhost:3001/v1', 'staging'],
    ['production on another port', 'http://127.0.0.1:4100/v1', 'production'],
  ] as const)('as served by %s, lists that server first, once', (_, url, stage) => {
    const served = v.parse(DocSchema, buildOpenApiDocument({}, { url, stage }));
    expect(served.servers[0]).toMatchObject({ url, description: expect.stringContaining(stage) });
    expect(served.servers.filter((s) => s.url === url)).toHaveLength(1);
    expect(served.servers.slice(1)).toEqual(doc.servers.filter((s) => s.url !== url));
  });

  it('says how paths and methods are matched: a trailing slash ignored, HEAD and OPTIONS 404', () => {
    const { description } = doc.info;
    expect(description).toMatch(/trailing slash is ignored/);
    expect(description).toMatch(/HEAD and OPTIONS/);
  });

  it('lets the Error object grow new optional fields, as docs/api.md promises of compatible changes', () => {
    expect(doc.components.schemas.Error?.additionalProperties).not.toBe(false);
  });

  it('says which media types a body may have, as the server does: application/json in UTF-8, nothing else', () => {
    const body = operation(routeOf((r) => r.body !== undefined)).requestBody;
    expect(Object.keys(body?.content ?? {})).toEqual(['application/json']);
    expect(body?.description).toMatch(/application\/vnd\.api\+json.*415.*charset.*utf-8/);
  });

  it('declares the gateway 401 without the IETF rate-limit fields, never sent there, and with WWW-Authenticate', () => {
    const headers = Object.keys(doc.components.responses.Unauthorized?.headers ?? {});
    expect(headers).toEqual(expect.arrayContaining([...GATEWAY_HEADERS, 'WWW-Authenticate']));
    expect(headers).not.toContain('RateLimit');
    expect(headers).not.toContain('RateLimit-Policy');
    expect(doc.components.headers['WWW-Authenticate']?.required).toBe(true);
  });

  it('requires a bearer API key on every operation', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearerAuth?.bearerFormat).toMatch(/pet_live_.*pet_test_/);
  });

  it('has the closed set of error codes as the Error code enum', () => {
    expect(doc.components.schemas.Error?.properties?.code?.enum).toEqual(Object.keys(ERROR_STATUS));
  });

  describe.each(ROUTES.map((r) => [r.operationId, r] as const))('%s', (_id, route) => {
    it('is there with its stability, and deprecated with a sunset date exactly when the route table says so', () => {
      const op = operation(route);
      expect(op.operationId).toBe(route.operationId);
      expect(op['x-stability']).toBe(route.stability);
      expect(op.deprecated).toBe(route.deprecation ? true : undefined);
      if (route.deprecation) {
        expect(op['x-sunset']).toBe('2027-06-01T00:00:00.000Z');
        expect(op.description).toContain('sunset on 2027-06-01');
      } else expect(op['x-sunset']).toBeUndefined();
    });

    it('documents 401, 404, 429, 500 and 503 as Errors, every response with X-Request-Id, no-store, nosniff and the rate-limit headers', () => {
      const op = operation(route);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '404', '429', '500', '503']));
      expect(op.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
      for (const [status, reference] of Object.entries(op.responses)) {
        const response = resolved(reference);
        expect(Object.keys(response.headers), status).toEqual(expect.arrayContaining([...GATEWAY_HEADERS]));
        // A component is an answer of the gateway's, given before the operation runs: no customer, no route-specific
        // headers there.
        const fromOperation = !v.is(RefSchema, reference);
        if (fromOperation) expect(Object.keys(response.headers), status).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
        if (route.deprecation && fromOperation)
          expect(Object.keys(response.headers), status).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
        if (route.stability !== 'stable' && fromOperation) expect(Object.keys(response.headers), status).toContain('X-API-Stability');
        if (status === '429' || status === '503') expect(Object.keys(response.headers), status).toContain('Retry-After');
        expect(response.content?.['application/json'], status).toBeDefined();
      }
    });

    it.each(GATEWAY_WIDE.map((spec) => [spec.status, spec.code, spec] as const))(
      'declares the gateway’s %i %s, answered for the whole API before the operation runs, without the route’s own headers',
      (status, code) => {
        const reference = operation(route).responses[status];
        assert.isDefined(reference, `${route.operationId} declares ${status}`);
        const response = resolved(reference);
        expect(response.content?.['application/json']?.schema).toMatchObject({
          allOf: [{ $ref: '#/components/schemas/Error' }],
          properties: { code: { enum: expect.arrayContaining([code]) }, status: { const: status } },
        });
        expect(Object.keys(response.headers)).toEqual(expect.arrayContaining([...GATEWAY_HEADERS]));
        for (const name of ['X-API-Stability', 'Deprecation', 'Sunset', 'Link']) {
          const header = response.headers[name];
          if (header) expect(header, `${name} on ${status}`).toMatchObject({ required: false });
        }
        if (status === 400 || status === 413) expect(response.description).toMatch(/before the operation runs.*on any path and method/);
      },
    );

    it('takes a NewCategory body exactly when the route has one', () => {
      const body = operation(route).requestBody;
      if (route.body) expect(body?.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/NewCategory' });
      else expect(body).toBeUndefined();
    });
  });

  it('documents the statuses of createCategory, getPetById and listStoreOrders from the contract', () => {
    const statuses = (id: string) => Object.keys(operation(routeOf((r) => r.operationId === id)).responses);
    expect(statuses('createCategory')).toEqual(['201', '400', '401', '404', '409', '413', '415', '422', '429', '500', '503']);
    expect(statuses('getPetById')).toEqual(['400', '401', '404', '410', '413', '429', '500', '501', '503']);
    expect(statuses('listStoreOrders')).toEqual(['400', '401', '404', '413', '429', '500', '501', '503']);
    expect(statuses('listCategories')).toEqual(['200', '400', '401', '404', '413', '429', '500', '503']);
  });

  it('declares the Idempotency-Key header of createCategory, its codes and the replay header', () => {
    const create = operation(createCategory);
    const responses = Object.fromEntries(Object.entries(create.responses).map(([status, response]) => [status, resolved(response)]));
    expect(create.parameters).toEqual([
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: expect.objectContaining({ maxLength: 255 }),
      }),
    ]);
    expect(responses['422']?.content?.['application/json']?.schema).toMatchObject({
      properties: { code: { enum: ['IDEMPOTENCY_KEY_REUSED'] } },
    });
    expect(responses['409']?.content?.['application/json']?.schema).toMatchObject({
      properties: { code: { enum: ['CATEGORY_EXISTS', 'CATEGORY_LIMIT_REACHED', 'IDEMPOTENCY_IN_PROGRESS'] } },
    });
    // A replay answers 201 or a remembered 409; Retry-After goes with IDEMPOTENCY_IN_PROGRESS only, so it is optional.
    for (const status of ['201', '409']) expect(Object.keys(responses[status]?.headers ?? {}), status).toContain('Idempotent-Replayed');
    for (const status of ['400', '422', '429'])
      expect(Object.keys(responses[status]?.headers ?? {}), status).not.toContain('Idempotent-Replayed');
    expect(responses['409']?.headers?.['Retry-After']).toMatchObject({ required: false });
    expect(operation(listCategories).parameters).toBeUndefined();
  });

  it('marks the rate-limit headers, X-Request-Id, Cache-Control and X-Content-Type-Options required', () => {
    for (const name of GATEWAY_HEADERS) {
      expect(doc.components.headers[name]?.required, name).toBe(true);
    }
  });
});

const RATE_LIMITED = {
  'X-RateLimit-Limit': '60',
  'X-RateLimit-Remaining': '59',
  'X-RateLimit-Reset': '1800000000',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

describe('the conformance check every HTTP test runs', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    body,
    text: JSON.stringify(body),
    headers: new Headers({ 'Content-Type': 'application/json', 'X-Request-Id': 'r1', ...RATE_LIMITED, ...headers }),
  });

  it('accepts a documented answer', async () => {
    expect(await openApiProblems('GET', '/categories', answer(200, [{ id: 1, name: 'Dog' }]))).toEqual([]);
    expect(await openApiProblems('GET', '/nowhere', answer(404, { code: 'NOT_FOUND', message: 'no', status: 404 }))).toEqual([]);
  });

  it('refuses a status the operation does not document', async () => {
    expect(await openApiProblems('GET', '/categories', answer(418, {}))).toEqual([expect.stringMatching(/status 418 is not documented/)]);
  });

  it('refuses a body that breaks the schema', async () => {
    expect(await openApiProblems('GET', '/categories', answer(200, [{ id: 0, name: 'Dog' }]))).not.toEqual([]);
    expect(await openApiProblems('POST', '/categories', answer(201, { id: 1, name: 'Dog', extra: 1, description: 2 }))).not.toEqual([]);
  });

  it('refuses an error whose code or status does not belong to the response', async () => {
    expect(await openApiProblems('POST', '/categories', answer(400, { code: 'CATEGORY_EXISTS', message: 'x', status: 400 }))).not.toEqual(
      [],
    );
    expect(await openApiProblems('POST', '/categories', answer(400, { code: 'VALIDATION_FAILED', message: 'x', status: 409 }))).not.toEqual(
      [],
    );
    expect(await openApiProblems('GET', '/nowhere', answer(404, { code: 'NOT_FOUND', message: 'no' }))).not.toEqual([]);
  });

  it('refuses a missing required header and a header value that breaks its schema', async () => {
    const noRequestId = { ...answer(200, []), headers: new Headers({ 'Content-Type': 'application/json', ...RATE_LIMITED }) };
    expect(await openApiProblems('GET', '/categories', noRequestId)).toEqual(['the required header X-Request-Id is missing']);
    const retryless = answer(503, { code: 'SERVICE_UNAVAILABLE', message: 'x', status: 503 });
    expect(await openApiProblems('GET', '/categories', retryless)).toEqual(['the required header Retry-After is missing']);
    const badRetry = answer(503, { code: 'SERVICE_UNAVAILABLE', message: 'x', status: 503 }, { 'Retry-After': 'soon' });
    expect(await openApiProblems('GET', '/categories', badRetry)).not.toEqual([]);
    const noSunset = answer(
      501,
      { code: 'NOT_IMPLEMENTED', message: 'x', status: 501 },
      { Deprecation: '@1', Link: '<x>; rel="deprecation"' },
    );
    expect(await openApiProblems('GET', '/pets/1', noSunset)).toEqual(['the required header Sunset is missing']);
  });

  it('refuses a body that is not JSON', async () => {
    const html = {
      status: 200,
      body: undefined,
      text: '<html>',
      headers: new Headers({ 'Content-Type': 'text/html', 'X-Request-Id': 'r', ...RATE_LIMITED }),
    };
    expect(await openApiProblems('GET', '/categories', html)).toHaveLength(2);
  });
});
