/**
 * The local API Gateway: a node:http server that does what a REST API with stage v1 does in front of our
 * functions. It matches the route table, turns the request into an API Gateway REST proxy event (payload v1),
 * runs the same handler modules Lambda runs, and answers gateway-level refusals from GATEWAY_RESPONSES.
 * One gateway serves one environment; its configuration comes from process.env like a function's.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { FUNCTION_SETTINGS } from '../../lib/function-settings.js';
import { GATEWAY_RATE_LIMIT_HEADERS, GATEWAY_RESPONSES, type GatewayResponseType } from '../../lib/http/gateway-responses.js';
import type { ApiEvent } from '../../lib/http/response.js';
import { log } from '../../lib/log.js';
import { matchRoute, ROUTES, type Route } from '../../lib/routes.js';
import { authorize } from './authorizer.js';

export const STAGE_NAME = 'v1';
/** API Gateway's own payload limit; the 16 KiB limit of the contract is the function's to enforce. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;
/** As deployed: a function that runs longer is cut off. */
const FUNCTION_TIMEOUT_MS = FUNCTION_SETTINGS.operationTimeoutSeconds * 1000;

type LambdaHandler = (event: ApiEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface GatewayOptions {
  /** Extra pages served outside /v1 (the API reference); keyed by exact path. */
  extraRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>>;
}

export interface Gateway {
  server: Server;
  url: string;
  close(): Promise<void>;
}

const handlerCache = new Map<string, Promise<LambdaHandler>>();

/** Imports a function module the way Lambda does: once per process, on first use. */
function loadHandler(route: Route): Promise<LambdaHandler> {
  let loaded = handlerCache.get(route.handler);
  if (!loaded) {
    loaded = import(`../../functions/${route.handler}.ts`).then((m: { handler: LambdaHandler }) => m.handler);
    handlerCache.set(route.handler, loaded);
  }
  return loaded;
}

export function lambdaContext(functionName: string, requestId: string, timeoutMs = FUNCTION_TIMEOUT_MS): Context {
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
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export function sendGatewayResponse(res: ServerResponse, type: GatewayResponseType, requestId: string, message?: string): void {
  const spec = GATEWAY_RESPONSES[type];
  const body = JSON.stringify({ code: spec.code, message: message ?? spec.message, status: spec.status });
  res.writeHead(spec.status, {
    'Content-Type': 'application/json',
    'X-Request-Id': requestId,
    ...GATEWAY_RATE_LIMIT_HEADERS,
    ...('headers' in spec ? spec.headers : {}),
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Headers as API Gateway passes them: original case, last value in `headers`, all values in `multiValueHeaders`. */
function proxyHeaders(req: IncomingMessage): Pick<ApiEvent, 'headers' | 'multiValueHeaders'> {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    headers[name] = value;
    const values = multiValueHeaders[name] ?? [];
    values.push(value);
    multiValueHeaders[name] = values;
  }
  return { headers, multiValueHeaders };
}

function queryParameters(url: URL): Pick<ApiEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'> {
  if (![...url.searchParams.keys()].length) return { queryStringParameters: null, multiValueQueryStringParameters: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) {
    single[key] = value;
    multi[key] = [...(multi[key] ?? []), value];
  }
  return { queryStringParameters: single, multiValueQueryStringParameters: multi };
}

export function buildEvent(
  req: IncomingMessage,
  url: URL,
  route: Route,
  pathParameters: Record<string, string> | null,
  body: Buffer,
  requestId: string,
  resourcePath: string,
): ApiEvent {
  const now = new Date();
  const { headers, multiValueHeaders } = proxyHeaders(req);
  return {
    resource: route.path,
    path: resourcePath,
    httpMethod: route.method,
    headers,
    multiValueHeaders,
    ...queryParameters(url),
    pathParameters,
    stageVariables: null,
    body: body.length ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      domainName: req.headers.host ?? 'localhost',
      extendedRequestId: requestId,
      httpMethod: route.method,
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
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${STAGE_NAME}${resourcePath}`,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: route.operationId,
      resourcePath: route.path,
      stage: STAGE_NAME,
    },
  };
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  headers['X-Request-Id'] ??= requestId;
  const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : Buffer.from(result.body ?? '', 'utf8');
  res.writeHead(result.statusCode, headers);
  res.end(body);
}

export async function handleRequest(req: IncomingMessage, res: ServerResponse, options: GatewayOptions = {}): Promise<void> {
  const requestId = randomUUID();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const extra = options.extraRoutes?.[url.pathname];
  if (extra && req.method === 'GET') return extra(req, res);

  const stagePrefix = `/${STAGE_NAME}`;
  const underStage = url.pathname === stagePrefix || url.pathname.startsWith(`${stagePrefix}/`);
  const resourcePath = underStage ? url.pathname.slice(stagePrefix.length).replace(/(.)\/$/, '$1') || '/' : '';
  const match = underStage ? matchRoute(req.method ?? 'GET', resourcePath) : undefined;
  const body = await readBody(req);
  if (!match) return sendGatewayResponse(res, 'MISSING_AUTHENTICATION_TOKEN', requestId);
  if (body === 'too-large') {
    sendGatewayResponse(res, 'REQUEST_TOO_LARGE', requestId);
    return;
  }

  const event = buildEvent(req, url, match.route, match.pathParameters, body, requestId, resourcePath);
  const auth = await authorize(event);
  if (!auth.allowed) return sendGatewayResponse(res, auth.response, requestId, auth.message);
  event.requestContext.authorizer = auth.context;
  try {
    const handler = await loadHandler(match.route);
    const result = await handler(event, lambdaContext(match.route.handler, requestId));
    if (!result || typeof result.statusCode !== 'number') throw new Error('the function returned no proxy result');
    writeResult(res, result, requestId);
  } catch (error) {
    // API Gateway answers a crashed or malformed integration with its default 5XX response.
    log.error('integration failed', { requestId, operationId: match.route.operationId, error });
    sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
  }
}

export async function startGateway(port: number, options: GatewayOptions = {}, host = '127.0.0.1'): Promise<Gateway> {
  const server = createServer((req, res) => {
    handleRequest(req, res, options).catch((error) => {
      log.error('gateway failure', { error });
      if (!res.headersSent) sendGatewayResponse(res, 'DEFAULT_5XX', randomUUID());
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}/${STAGE_NAME}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Every operation's handler module, imported up front so that a broken one fails startup, not a request. */
export async function preloadHandlers(): Promise<void> {
  await Promise.all((ROUTES as readonly Route[]).map(loadHandler));
}
