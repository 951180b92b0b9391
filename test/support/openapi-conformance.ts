/**
 * Holds every answer the HTTP tests see to openapi.json, with openapi-backend's validator on a JSON Schema
 * 2020-12 Ajv (the dialect of OpenAPI 3.1): the status must be documented for the operation (or, where no
 * operation matches, be the document's NotFound response), the body must match that response's schema, present
 * headers must match their schemas, and every header the document marks required must be there.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { OpenAPIBackend, SetMatchType, ValidationContext } from 'openapi-backend';
import { expect } from 'vitest';
import type { Answer } from './answer.js';

export const OPENAPI_PATH = new URL('../../openapi.json', import.meta.url);

interface HeaderObject {
  required?: boolean;
  schema?: object;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: object }>;
}

/** What the check reads of an answer (the document's tests build such answers by hand). */
type Observed = Pick<Answer, 'status' | 'headers' | 'body' | 'text'>;

let backend: Promise<OpenAPIBackend> | undefined;

/** openapi-backend on the committed document, its Ajv instances replaced by 2020-12 ones with the OAS formats. */
function openApi(): Promise<OpenAPIBackend> {
  backend ??= (async () => {
    const definition = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
    // quick: skip openapi-backend's own check of the document, which knows OpenAPI 3.0 only; the document is
    // checked against the 3.1 schema in test/openapi/document.test.ts.
    const api = new OpenAPIBackend({
      definition,
      quick: true,
      strict: true,
      customizeAjv: (original, options) => {
        const ajv = new Ajv2020.default({ ...options, allErrors: true });
        for (const [name, format] of Object.entries(original.formats)) ajv.addFormat(name, format as never);
        return ajv;
      },
    });
    await api.init();
    return api;
  })();
  return backend;
}

/** What is wrong with an answer to `method path` (path below /v1), per openapi.json; empty when it conforms. */
export async function openApiProblems(method: string, path: string, answer: Observed): Promise<string[]> {
  const api = await openApi();
  const pathname = new URL(path, 'http://x').pathname;
  const operation = api.router.matchOperation({ method, path: pathname, headers: {} });
  const problems: string[] = [];

  let response: ResponseObject | undefined;
  if (operation) {
    response = operation.responses?.[String(answer.status)] as ResponseObject | undefined;
    if (!response) {
      const documented = Object.keys(operation.responses ?? {}).join(', ');
      return [`status ${answer.status} is not documented for ${operation.operationId} (documented: ${documented})`];
    }
  } else {
    response = (api.definition.components?.responses as Record<string, ResponseObject> | undefined)?.NotFound;
    if (answer.status !== 404 || !response)
      return [`no operation matches, so the answer must be the NotFound response; got ${answer.status}`];
  }

  const schema = response.content?.['application/json']?.schema;
  if (schema) {
    if (!answer.headers.get('content-type')?.startsWith('application/json')) {
      problems.push(`Content-Type is ${answer.headers.get('content-type')}, not application/json`);
    }
    if (answer.body === undefined) {
      problems.push(`the body is not JSON: ${answer.text.slice(0, 200)}`);
    } else {
      const result = operation
        ? api.validator.validateResponse(answer.body, operation, answer.status)
        : validateNotFound(api, schema, answer.body);
      for (const error of result.errors ?? []) problems.push(`body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
    }
  }

  const headers = Object.fromEntries(answer.headers.entries());
  if (operation) {
    const result = api.validator.validateResponseHeaders(headers, operation, { statusCode: answer.status, setMatchType: SetMatchType.Any });
    for (const error of result.errors ?? []) problems.push(`header ${error.instancePath} ${error.message}`);
  }
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (!header.required || answer.headers.has(name)) continue;
    problems.push(`the required header ${name} is missing`);
  }
  return problems;
}

const notFoundValidators = new WeakMap<object, ReturnType<ReturnType<OpenAPIBackend['validator']['getAjv']>['compile']>>();

function validateNotFound(api: OpenAPIBackend, schema: object, body: unknown) {
  let validate = notFoundValidators.get(schema);
  if (!validate) {
    validate = api.validator.getAjv(ValidationContext.Response).compile(schema);
    notFoundValidators.set(schema, validate);
  }
  validate(body);
  return { errors: validate.errors };
}

/** Fails the running test when an answer does not conform to openapi.json. */
export async function expectConformsToOpenApi(method: string, path: string, answer: Observed): Promise<void> {
  expect(await openApiProblems(method, path, answer), `${method} /v1${path} → ${answer.status} conforms to openapi.json`).toEqual([]);
}
