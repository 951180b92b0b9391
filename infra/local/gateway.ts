/**
 * The local API Gateway: a node:http server that does what a REST API with stage v1 does in front of our
 * functions. It matches the route definitions, turns the request into API Gateway's REST proxy event, runs the
 * authorizer and then the same handler modules Lambda runs, and answers gateway-level refusals from
 * GATEWAY_RESPONSES. One gateway serves one environment, whose configuration is its process's.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { log } from '../../lib/log.js';
import { API_STAGE_NAME } from '../../lib/stacks.js';
import { authorize } from './authorizer.js';
import { proxyEvent } from './events.js';
import { invoke } from './functions.js';
import { sendGatewayResponse } from './gateway-answers.js';
import { matchRoute } from './route-match.js';

/** API Gateway's own payload limit; the 16 KiB limit of the contract is the function's to enforce. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

export interface GatewayOptions {
  /** Extra pages served outside /v1 (the API reference); keyed by exact path. */
  extraRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>>;
}

export interface Gateway {
  server: Server;
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = Buffer.from(chunk);
    size += bytes.length;
    if (size > GATEWAY_MAX_BODY) return 'too-large';
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/** Name/value pairs as received, original case, repeats kept. */
function headerPairs(req: IncomingMessage): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) pairs.push([req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '']);
  return pairs;
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

  const stagePrefix = `/${API_STAGE_NAME}`;
  const underStage = url.pathname === stagePrefix || url.pathname.startsWith(`${stagePrefix}/`);
  const resourcePath = underStage ? url.pathname.slice(stagePrefix.length).replace(/(.)\/$/, '$1') || '/' : '';
  const match = underStage ? matchRoute(req.method ?? 'GET', resourcePath) : undefined;
  const body = await readBody(req);
  if (!match) return sendGatewayResponse(res, 'MISSING_AUTHENTICATION_TOKEN', requestId);
  if (body === 'too-large') return sendGatewayResponse(res, 'REQUEST_TOO_LARGE', requestId);

  const event = proxyEvent({
    method: match.route.method,
    path: resourcePath,
    resource: match.route.path,
    headers: headerPairs(req),
    query: [...url.searchParams],
    pathParameters: match.pathParameters,
    body: body.length ? body.toString('utf8') : null,
    requestId,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
  });
  const auth = await authorize(event);
  if (!auth.allowed) return sendGatewayResponse(res, auth.response, requestId, auth.message);
  event.requestContext.authorizer = auth.context;
  try {
    const result = await invoke(match.route, event);
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
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actualPort}/${API_STAGE_NAME}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
