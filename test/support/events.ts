/** API Gateway REST proxy events for handler tests: the shape the local gateway and API Gateway produce. */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext } from '../../infra/local/gateway.js';
import type { ApiEvent } from '../../lib/http/response.js';

export interface EventInput {
  method?: string;
  path?: string;
  resource?: string;
  body?: string | null;
  headers?: Record<string, string>;
  pathParameters?: Record<string, string> | null;
  authorizer?: Record<string, string | number | boolean> | null;
  isBase64Encoded?: boolean;
}

/** What the authorizer passes for the default test customer: limits high enough never to refuse. */
export const TEST_AUTHORIZER = {
  principalId: 'handler-test-customer',
  customerId: `handler-test-customer-${randomUUID().slice(0, 8)}`,
  keyId: 'key_0000000000000000',
  plan: 'enterprise',
  perMinute: '1000000',
  perDay: '1000000000',
};

export function proxyEvent(input: EventInput = {}): ApiEvent {
  const requestId = randomUUID();
  const headers = input.headers ?? {};
  return {
    resource: input.resource ?? input.path ?? '/categories',
    path: input.path ?? '/categories',
    httpMethod: input.method ?? 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: input.pathParameters ?? null,
    stageVariables: null,
    body: input.body ?? null,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      requestId,
      stage: 'v1',
      authorizer: input.authorizer === null ? undefined : (input.authorizer ?? TEST_AUTHORIZER),
      httpMethod: input.method ?? 'GET',
      path: `/v1${input.path ?? '/categories'}`,
      resourcePath: input.resource ?? input.path ?? '/categories',
    } as ApiEvent['requestContext'],
  };
}

type Handler = (event: ApiEvent, context: ReturnType<typeof lambdaContext>) => Promise<APIGatewayProxyResult | undefined>;

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export async function invoke(handler: Handler, event: ApiEvent): Promise<Answer> {
  // Handler tests fire dozens of requests at one process, where Lambda would give each its own instance:
  // a generous deadline keeps a loaded CI machine from turning queueing into timeouts.
  const result = await handler(event, lambdaContext('test', event.requestContext.requestId, 60_000));
  if (!result) throw new Error('handler returned nothing');
  return {
    status: result.statusCode,
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
    body: result.body ? JSON.parse(result.body) : undefined,
  };
}

export function jsonPost(body: string | null, headers: Record<string, string> = { 'Content-Type': 'application/json' }): ApiEvent {
  return proxyEvent({ method: 'POST', path: '/categories', body, headers });
}
