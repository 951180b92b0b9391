/**
 * A route describes itself: every part the generators need is there (or the definition fails at load), each
 * route has its handler file, and what openapi.json says of each operation (statuses, codes, headers, parameter,
 * body and answer schemas) is exactly what its definition and the chain's steps imply.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { NewCategorySchema } from '../../lib/categories/schema.js';
import { ERROR_STATUS } from '../../lib/http/error-codes.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../lib/idempotency/key.js';
import { answerHeaderNames, RETRY_AFTER_CODES, routeErrorCodes } from '../../lib/openapi/answers.js';
import { jsonSchema } from '../../lib/openapi/schemas.js';
import { defineRoute } from '../../lib/routes/definition.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { OPENAPI_PATH } from '../support/openapi-conformance.js';

const base: Route = {
  operationId: 'probe',
  method: 'GET',
  path: '/probe',
  handler: 'probe',
  summary: 'A probe',
  tag: 'Categories',
  stability: 'stable',
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { counters: 'write' },
  success: { status: 200, description: 'ok', schema: v.object({}) },
  errors: [],
};

describe('defineRoute refuses a definition the generators cannot use', () => {
  it('accepts a complete one', () => {
    expect(defineRoute(base)).toBe(base);
  });

  it.each<[string, Partial<Route>, RegExp]>([
    ['a path parameter without a schema', { path: '/probe/{id}' }, /path parameters \{id\} but params declares \{\}/],
    ['a schema for a parameter the path lacks', { params: v.object({ id: v.string() }) }, /params declares \{id\}/],
    ['a POST without a body', { method: 'POST' }, /a POST takes a body/],
    ['a GET with a body', { body: NewCategorySchema }, /a GET none/],
    ['no success answer and not NOT_IMPLEMENTED', { success: undefined }, /no success answer/],
    [
      'a writer that would run before admission',
      { runsBeforeAdmission: true, tables: { categories: 'write', counters: 'write' } },
      /run before admission/,
    ],
    ['a counting route that cannot write its count', { tables: { counters: 'read' } }, /counting writes the counters table/],
    ['a peek route that does not read the counters', { quota: 'peek', tables: {} }, /peeking reads the counters table/],
    ['a handler name that is not a file name', { handler: '../probe' }, /kebab-case/],
    [
      'a deprecated route that does not consume quota (the admitting write counts its calls)',
      {
        quota: 'peek',
        tables: { counters: 'read' },
        deprecation: { since: '2026-06-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', docsUrl: 'https://example.com' },
      },
      /a deprecated call is counted by the write that admits it/,
    ],
    [
      'an idempotent GET',
      { idempotent: true, tables: { counters: 'write', idempotency: 'write' } },
      /only a POST takes an Idempotency-Key/,
    ],
    [
      'an idempotent route without the idempotency table',
      { method: 'POST', body: NewCategorySchema, idempotent: true },
      /an idempotent route writes the idempotency table/,
    ],
    [
      'the idempotency table on a route that is not idempotent',
      { tables: { counters: 'write', idempotency: 'write' } },
      /and only it does/,
    ],
  ])('refuses %s', (_what, change, message) => {
    expect(() => defineRoute({ ...base, ...change })).toThrow(message);
  });
});

interface Response {
  headers: Record<string, unknown>;
  content: Record<string, { schema: { properties?: { code?: { enum: string[] } } } & Record<string, unknown> }>;
}
interface RawOperation {
  parameters?: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, Response | { $ref: string }>;
}
type Operation = Omit<RawOperation, 'responses'> & { responses: Record<string, Response> };
const doc = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as {
  paths: Record<string, Record<string, RawOperation>>;
  components: { responses: Record<string, Response> };
};

/** The operation with its responses' $refs to components.responses followed. */
function resolvedOperation(raw: RawOperation | undefined): Operation | undefined {
  if (!raw) return undefined;
  const responses: Record<string, Response> = {};
  for (const [status, response] of Object.entries(raw.responses)) {
    const ref = '$ref' in response ? response.$ref : undefined;
    const target = ref ? doc.components.responses[ref.split('/').at(-1) ?? ''] : response;
    if (target && !('$ref' in target)) responses[status] = target;
  }
  return { ...raw, responses };
}

describe.each(ROUTES.map((route) => [route.operationId, route] as const))('%s', (_id, route) => {
  const operation = resolvedOperation(doc.paths[route.path]?.[route.method.toLowerCase()]);

  it('has its handler file in functions/, exporting handler', async () => {
    const file = new URL(`../../functions/${route.handler}.ts`, import.meta.url);
    expect(existsSync(file), file.pathname).toBe(true);
    expect(typeof (await import(file.href)).handler).toBe('function');
  });

  it('is documented with exactly the statuses and codes its definition and the chain imply', () => {
    const codes = routeErrorCodes(route);
    const statuses = new Set([...(route.success ? [route.success.status] : []), ...codes.map((code) => ERROR_STATUS[code])]);
    expect(
      Object.keys(operation?.responses ?? {})
        .map(Number)
        .sort(),
    ).toEqual([...statuses].sort());
    for (const code of codes) {
      expect(operation?.responses[ERROR_STATUS[code]]?.content['application/json']?.schema.properties?.code?.enum, code).toContain(code);
    }
  });

  it('documents the headers its definition implies on every answer (the gateway 401 and 404: only the gateway ones)', () => {
    for (const [status, response] of Object.entries(operation?.responses ?? {})) {
      const codes = response.content['application/json']?.schema.properties?.code?.enum ?? [];
      const retry = codes.some((code) => RETRY_AFTER_CODES.has(code as never)) ? ['Retry-After'] : [];
      const expected = answerHeaderNames(route, Number(status), codes as never[]);
      expect(Object.keys(response.headers).sort(), status).toEqual([...expected, ...retry].sort());
    }
  });

  it('documents its parameters, body and answer with the JSON Schema of the valibot schemas it checks with', () => {
    const success = route.success;
    if (success) expect(operation?.responses[success.status]?.content['application/json']?.schema).toEqual(jsonSchema(success.schema));
    expect(operation?.requestBody?.content['application/json']?.schema).toEqual(route.body ? jsonSchema(route.body) : undefined);
    const header = route.idempotent ? [IDEMPOTENCY_KEY_HEADER] : [];
    expect((operation?.parameters ?? []).map((p) => p.name)).toEqual([...Object.keys(route.params?.entries ?? {}), ...header]);
    for (const parameter of operation?.parameters ?? []) {
      expect(parameter).toMatchObject(
        parameter.name === IDEMPOTENCY_KEY_HEADER ? { in: 'header', required: false } : { in: 'path', required: true },
      );
    }
  });
});
