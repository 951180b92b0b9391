/**
 * The one factory of the events API Gateway hands our functions (local gateway, tests, benchmark): the REST proxy event
 * (payload 1.0), its REQUEST authorizer event, and the Lambda context. Headers keep case and order; `headers` holds the
 * last value of each name, `multiValueHeaders` all (names compared ignoring case), as API Gateway does.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import type { ApiEvent } from '../../lib/http/response.js';
import { API_STAGE_NAME } from '../../lib/stacks.js';

export interface ProxyEventInput {
  method?: string;
  /** The path below the stage, as sent (no /v1). */
  path?: string;
  /** The route's path template; defaults to `path`. */
  resource?: string;
  /** Name/value pairs in the order received; repeated names are kept. */
  headers?: Record<string, string> | [string, string][];
  query?: [string, string][];
  pathParameters?: Record<string, string> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestId?: string;
  sourceIp?: string;
  /** What the authorizer passed on; API Gateway hands every value over as a string. */
  authorizer?: Record<string, string | number | boolean> | null;
}

/**
 * Values by name, the last in `single`, all in `multi`; header names ignore case (spelled as first received). Built
 * as own properties, so `__proto__` is an ordinary name, as Lambda's JSON.parse makes it.
 */
function grouped(pairs: [string, string][], ignoreCase = false): { single: Record<string, string>; multi: Record<string, string[]> } {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  const spelled = new Map<string, string>();
  for (const [received, value] of pairs) {
    const key = ignoreCase ? received.toLowerCase() : received;
    const name = spelled.get(key);
    if (name === undefined) {
      spelled.set(key, received);
      own(single, received, value);
      own(multi, received, [value]);
    } else {
      own(single, name, value);
      multi[name]?.push(value);
    }
  }
  return { single, multi };
}

function own<T>(target: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
  else target[name] = value;
}

export function proxyEvent(input: ProxyEventInput = {}): ApiEvent {
  const requestId = input.requestId ?? randomUUID();
  const method = input.method ?? 'GET';
  const path = input.path ?? '/categories';
  const resource = input.resource ?? path;
  const headers = grouped(Array.isArray(input.headers) ? input.headers : Object.entries(input.headers ?? {}), true);
  const query = grouped(input.query ?? []);
  const hasQuery = (input.query ?? []).length > 0;
  const now = new Date();
  const authorizer = input.authorizer ? Object.fromEntries(Object.entries(input.authorizer).map(([k, v]) => [k, String(v)])) : undefined;
  return {
    resource,
    path,
    httpMethod: method,
    headers: headers.single,
    multiValueHeaders: headers.multi,
    queryStringParameters: hasQuery ? query.single : null,
    multiValueQueryStringParameters: hasQuery ? query.multi : null,
    pathParameters: input.pathParameters ?? null,
    stageVariables: null,
    body: input.body ?? null,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer,
      domainName: headers.single.Host ?? headers.single.host ?? 'localhost',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: input.sourceIp ?? '127.0.0.1',
        user: null,
        userAgent: headers.single['User-Agent'] ?? headers.single['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${API_STAGE_NAME}${path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: resource,
      resourcePath: resource,
      stage: API_STAGE_NAME,
    },
  };
}

/** The method ARN API Gateway passes to an authorizer for a request to `resource`. */
export function methodArn(method: string, resource: string): string {
  return `arn:aws:execute-api:local:000000000000:local/${API_STAGE_NAME}/${method}${resource}`;
}

export function authorizerEvent(event: ApiEvent): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: methodArn(event.httpMethod, event.resource),
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: event.headers,
    multiValueHeaders: event.multiValueHeaders,
    pathParameters: event.pathParameters,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    stageVariables: event.stageVariables,
    requestContext: { ...event.requestContext, authorizer: undefined },
  };
}

const nothing = () => undefined;

export function lambdaContext(
  functionName: string,
  requestId: string,
  timeoutMs = FUNCTION_SETTINGS.operationTimeoutSeconds * 1000,
): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(FUNCTION_SETTINGS.memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: nothing,
    fail: nothing,
    succeed: nothing,
  };
}
