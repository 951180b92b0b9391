/** The OpenAPI 3.1 document, generated from the route definitions and valibot schemas, so it cannot drift from the code. */
import { gatewayResponseTypesOf } from '../api-gateway/gateway-responses.js';
import { type DeprecationOverrides, deprecationDates } from '../deprecation.js';
import { ERROR_STATUS } from '../http/error-codes.js';
import { JSON_MEDIA_TYPE, MAX_BODY_BYTES, MAX_JSON_DEPTH } from '../http/json-body.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_RULE, REMEMBERED_SECONDS } from '../idempotency/key.js';
import { ROUTES, type Route, type Tag } from '../routes.js';
import type { Stage } from '../stacks.js';
import {
  answerHeaderNames,
  GATEWAY_CODES,
  GATEWAY_STATUSES,
  gatewayHeaderNames,
  onlyFromGateway,
  routeErrorCodes,
  routeOwnHeaderNames,
} from './answers.js';
import { byStatus, errorResponse, GATEWAY_ANSWER_DOCS, type Json } from './errors.js';
import { HEADERS, headerRefs } from './headers.js';
import { INFO_CONTACT, INFO_DESCRIPTION, INFO_LICENSE } from './info.js';
import { componentSchemas, jsonSchema } from './schemas.js';

export const API_VERSION = '1.2.0';
const BODY_LIMIT = `${MAX_BODY_BYTES / 1024} KiB`;

/** Which answers of a deprecated or non-stable operation lack its own headers (docs/api.md, "Deprecation"). */
const GATEWAY_WIDE_EXCEPTION =
  "the answers the gateway gives for the whole API before it knows the operation (401, 413, a malformed request's 400, the throttles' 429, a failed key check's 503, a failed function's 500) do not";

const TAGS: Record<Tag, string> = {
  Categories: 'Species and breed categories',
  'Rate limits': "The caller's plan and usage",
  Pets: 'Named by the specification, shape not defined',
  Store: 'Named by the specification, shape not defined',
};

function parameters(route: Route): Json[] {
  const path = Object.entries(route.params?.entries ?? {}).map(([name, schema]) => {
    // A parameter's regex checks the string the gateway hands over; a client sees the integer its metadata says.
    const { description, ...rest } = jsonSchema(schema, ['regex']);
    return { name, in: 'path', required: true, ...(description ? { description } : {}), schema: rest };
  });
  return route.idempotent ? [...path, idempotencyKeyParameter()] : path;
}

function idempotencyKeyParameter(): Json {
  const hours = REMEMBERED_SECONDS / 3600;
  return {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description: [
      `Makes the request safe to retry: ${IDEMPOTENCY_KEY_RULE} (a UUID is a good choice), scoped to the customer and remembered ${hours} hours.`,
      'A retry with the same key and the same body (the same JSON value: white space and member order do not matter) gets the first answer again, status and body, with `Idempotent-Replayed: true`, and nothing is created twice.',
      'What is remembered is the result of the operation, success or error (201, 409 `CATEGORY_EXISTS`, 409 `CATEGORY_LIMIT_REACHED`); refusals before it runs (401, 429, 400, 413, 415) and 5xx are not, so the retry runs again. A replay counts against the plan like any request.',
      'The same key with another body is 422 `IDEMPOTENCY_KEY_REUSED`; while the first request still runs, 409 `IDEMPOTENCY_IN_PROGRESS` with `Retry-After`. Without the header the request is not idempotent.',
    ].join(' '),
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x20-\\x7E]+$' },
    example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
  };
}

function operationObject(route: Route, overrides: DeprecationOverrides): Json {
  const responses: Record<string, Json> = {};
  if (route.success) {
    responses[route.success.status] = {
      description: route.success.description,
      headers: headerRefs(answerHeaderNames(route, route.success.status)),
      content: { 'application/json': { schema: jsonSchema(route.success.schema) } },
    };
  }
  for (const [status, codes] of byStatus(routeErrorCodes(route))) {
    // What only the gateway answers (and its 401, the same as an operation's) is one component per status.
    if (status === 401 || onlyFromGateway(route, status)) {
      responses[status] = { $ref: `#/components/responses/${gatewayAnswer(status)}` };
      continue;
    }
    const gateway = GATEWAY_STATUSES.has(status);
    responses[status] = errorResponse(status, codes, answerHeaderNames(route, status, codes), {
      note: gateway
        ? [GATEWAY_ANSWER_DOCS[status]?.description, gatewayTypesNote(status)].filter(Boolean).join(' ') || undefined
        : undefined,
      notAlways: gateway ? routeOwnHeaderNames(route) : [],
    });
  }

  const notes = [route.description];
  if (route.body) {
    notes.push(
      `Checks run in the order a client fixes things: ${route.idempotent ? `the \`${IDEMPOTENCY_KEY_HEADER}\` header (400), ` : ''}size (413, over ${BODY_LIMIT}), presence (400), media type (415), nesting (400), JSON syntax (400), fields (400), ${route.idempotent ? 'then a key already used (replay, 422 or 409), ' : ''}then the operation's own (${route.errors.join(', ') || 'none'}).`,
    );
  }
  if (route.stability !== 'stable') {
    notes.push(`Stability: **${route.stability}**; it may change without a new version. Responses carry \`X-API-Stability\`.`);
  }
  const dates = route.deprecation && deprecationDates(route.deprecation, overrides);
  if (dates) {
    notes.push(
      `**Deprecated** since ${dates.deprecatedAt.toISOString()}; sunset on ${dates.sunsetAt.toISOString()} (${dates.sunsetAt.toUTCString()}), after which it answers 410 GONE. Every answer the operation gives, errors included, carries \`Deprecation\`, \`Sunset\` and \`Link: <${dates.docsUrl}>; rel="deprecation"\`; ${GATEWAY_WIDE_EXCEPTION}.`,
    );
  }
  const params = parameters(route);
  const description = notes.filter(Boolean).join('\n\n');

  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(description ? { description } : {}),
    tags: [route.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            description: `A JSON body of at most ${BODY_LIMIT}, sent as \`${JSON_MEDIA_TYPE}\` in UTF-8. No other media type is accepted, \`+json\` ones such as \`application/vnd.api+json\` included (415); a \`charset\` parameter, if sent, must be \`utf-8\` (415). A body that is not valid UTF-8 is 400 MALFORMED_JSON; one that nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep is 400 VALIDATION_FAILED, found before it is parsed; a string holding a lone surrogate (a \`\\ud800\` escape without its pair) is 400 VALIDATION_FAILED naming the field.`,
            content: { [JSON_MEDIA_TYPE]: { schema: jsonSchema(route.body) } },
          },
        }
      : {}),
    responses,
    ...(dates ? { deprecated: true, 'x-sunset': dates.sunsetAt.toISOString() } : {}),
    'x-stability': route.stability,
  };
}

function gatewayTypesNote(status: number): string | undefined {
  const types = gatewayResponseTypesOf(status);
  return types.length ? `Deployed, API Gateway answers with it for ${types.map((type) => `\`${type}\``).join(', ')}.` : undefined;
}

const GATEWAY_ANSWERS: Record<number, string> = {
  400: 'MalformedRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  429: 'Throttled',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

function gatewayAnswer(status: number): string {
  const name = GATEWAY_ANSWERS[status];
  if (!name) throw new Error(`No component for the gateway's ${status}`);
  return name;
}

function gatewayResponses(paths: Record<string, Record<string, Json>>): Record<string, Json> {
  const used = new Set(
    JSON.stringify(paths)
      .match(/#\/components\/responses\/\w+/g)
      ?.map((ref) => ref.split('/').at(-1)),
  );
  const components: Record<string, Json> = {};
  for (const status of [...GATEWAY_STATUSES].sort((a, b) => a - b)) {
    const name = gatewayAnswer(status);
    if (!used.has(name)) continue;
    const codes = GATEWAY_CODES.filter((code) => ERROR_STATUS[code] === status);
    const headers = gatewayHeaderNames(status);
    components[name] = errorResponse(status, codes, headers, { own: GATEWAY_ANSWER_DOCS[status], note: gatewayTypesNote(status) });
  }
  return components;
}

const deployedServer = (stage: 'Production' | 'Staging', apiId: string) => ({
  url: 'https://{apiId}.execute-api.{region}.amazonaws.com/v1',
  'x-internal': false,
  description: `${stage}, deployed: the API id is in the outputs of the PetStore-${stage} stack`,
  variables: {
    apiId: { default: apiId, description: `The REST API id of PetStore-${stage}` },
    region: { default: 'eu-west-1', description: 'The AWS region the stack is deployed to' },
  },
});

const LOCAL_SERVERS = [
  { url: 'http://localhost:3000/v1', description: 'Production, local (`npm start`)', 'x-internal': false },
  { url: 'http://localhost:3001/v1', description: 'Staging, local (`npm start`)', 'x-internal': false },
];

/** The server a document is served by: listed first, so generated clients and "Try it out" call it. */
export interface ServingServer {
  url: string;
  stage: Stage;
}

function servers(self: ServingServer | undefined): Json[] {
  const all: Json[] = [...LOCAL_SERVERS, deployedServer('Production', 'production-api-id'), deployedServer('Staging', 'staging-api-id')];
  if (!self) return all;
  return [
    { url: self.url, description: `This server (${self.stage})`, 'x-internal': false },
    ...all.filter((server) => server.url !== self.url),
  ];
}

/** `overrides`: an environment's deprecation dates; `self`: the server serving it (none: the committed file). */
export function buildOpenApiDocument(overrides: DeprecationOverrides = {}, self?: ServingServer): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of ROUTES) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operationObject(route, overrides);
    paths[route.path] = item;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: API_VERSION,
      description: INFO_DESCRIPTION,
      contact: INFO_CONTACT,
      license: INFO_LICENSE,
    },
    servers: servers(self),
    security: [{ bearerAuth: [] }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key: pet_live_… (production) or pet_test_… (staging), then 30 base62 characters and a 6-character checksum',
          description: 'An API key issued with `npm run petstore -- keys create`, sent as `Authorization: Bearer <key>`.',
        },
      },
      schemas: componentSchemas(),
      headers: HEADERS,
      responses: gatewayResponses(paths),
    },
  };
}
