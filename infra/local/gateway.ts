/**
 * The local API Gateway: a node:http server doing what the REST API's stage v1, and the WAF web ACL before it, do in
 * front of our functions: web ACL refusals, route matching (a method a resource lacks, HEAD and OPTIONS too, is the
 * Missing Authentication Token 404; a trailing slash is ignored), the proxy event (binary media types base64), the
 * authorizer, usage plans and throttles (gateway-layers.ts), Lambda's payload limit, then the handler modules.
 * Malformed requests are malformed-requests.ts's. One gateway serves one environment. See docs/api.md, "HTTP details".
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { isBinaryMediaType } from '../../lib/api-gateway/binary-media-types.js';
import { gatewayLog } from '../../lib/log.js';
import { API_STAGE_NAME } from '../../lib/stacks.js';
import { authorize } from './authorizer.js';
import { proxyEvent } from './events.js';
import { sendGatewayResponse, sendWebAclResponse } from './gateway-answers.js';
import { gatewayRefusal, type LayerOptions, sourceAddress, webAclRefusal } from './gateway-layers.js';
import { inProcess, type LocalFunctions, workerInstances } from './instances.js';
import { answerConnectionEdges, hostRefusal, NODE_MAX_HEADER_SIZE, rememberRequest, sizeRefusal } from './malformed-requests.js';
import { API_GATEWAY_MAX_BODY_BYTES, overLambdaInvokeLimit, refusedByWebAcl } from './payload-limits.js';
import { matchRoute } from './route-match.js';

export interface GatewayOptions extends LayerOptions {
  /** Pages outside /v1 (the API reference), by exact path. */
  extraRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>>;
  /** The web ACL's body-size rule, as deployed; off in tests of Lambda's invoke payload limit. @default true */
  webAcl?: boolean;
  /** Warm instances of each function (instances.ts). @default 1 */
  instances?: number;
  preload?: boolean;
  /** Told which instance of which operation answered each request that reached one (tests; serve.ts's request lines). */
  onInvoked?: (invocation: {
    operationId: string;
    instance: number;
    statusCode: number | undefined;
    requestId: string;
    customerId: string | undefined;
    request: IncomingMessage;
  }) => void;
}

export interface Gateway {
  server: Server;
  url: string;
  close(): Promise<void>;
}

const NO_BODY = Buffer.alloc(0);

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  // Neither Content-Length nor Transfer-Encoding: no body (RFC 9112, 6.3), and no wait for the stream's end. With the
  // cached policy and usage plan, 0.156 → 0.135 ms of CPU a request (docs/performance.md, "The local gateway's own work").
  const { 'content-length': length, 'transfer-encoding': encoding } = req.headers;
  if (encoding === undefined && (length === undefined || length === '0')) return NO_BODY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = Buffer.from(chunk);
    size += bytes.length;
    if (size > API_GATEWAY_MAX_BODY_BYTES) return 'too-large';
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/**
 * Non-empty segments of letters, digits, `_` and `-`, and no query: what the WHATWG URL parser returns as the path
 * unchanged (nothing to percent-encode, no dot segment), so it is not parsed.
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)*\/?$/;

/**
 * The target's path and query. An origin-form target is a path even when it starts with `//` (RFC 9112, 3.2.1), so
 * `//x/v1/categories` is that path, which no route has, not host x's `/v1/categories`; a target the parser refuses
 * (absolute-form with a bad port) is no path at all.
 */
export function requestTarget(raw: string): { pathname: string; query: [string, string][] } {
  if (raw.startsWith('/') && PLAIN_PATH.test(raw)) return { pathname: raw, query: [] };
  const url = raw.startsWith('/') ? URL.parse(`http://localhost${raw}`) : URL.parse(raw, 'http://localhost');
  return url ? { pathname: url.pathname, query: [...url.searchParams] } : { pathname: '', query: [] };
}

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

export async function handleRequest(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  options: GatewayOptions = {},
  functions: LocalFunctions = inProcess,
): Promise<void> {
  const refusal = hostRefusal(req) ?? sizeRefusal(req);
  if (refusal) {
    // As for the requests Node's parser refuses: the connection closes, the rest of the stream unread.
    res.shouldKeepAlive = false;
    return sendGatewayResponse(res, 'DEFAULT_4XX', requestId, refusal);
  }
  const url = requestTarget(req.url ?? '/');
  const extra = options.extraRoutes?.[url.pathname];
  // HEAD as GET: Node sends the headers of a HEAD request's answer without its body.
  if (extra && (req.method === 'GET' || req.method === 'HEAD')) return extra(req, res);

  const stagePrefix = `/${API_STAGE_NAME}`;
  const underStage = url.pathname === stagePrefix || url.pathname.startsWith(`${stagePrefix}/`);
  const path = underStage ? url.pathname.slice(stagePrefix.length) || '/' : '';
  const resourcePath = path.replace(/(.)\/$/, '$1');
  const match = underStage ? matchRoute(req.method ?? 'GET', resourcePath) : undefined;
  const body = await readBody(req);
  // WAF evaluates a request before API Gateway routes it.
  if ((options.webAcl ?? true) && refusedByWebAcl(body === 'too-large' ? undefined : body.length))
    return sendGatewayResponse(res, 'WAF_FILTERED', requestId);
  const wafRule = webAclRefusal(options, sourceAddress(req.socket.remoteAddress), req.headers.authorization);
  if (wafRule) return sendWebAclResponse(res, wafRule);
  if (!match) return sendGatewayResponse(res, 'MISSING_AUTHENTICATION_TOKEN', requestId);
  if (body === 'too-large') return sendGatewayResponse(res, 'REQUEST_TOO_LARGE', requestId);

  const binary = body.length > 0 && isBinaryMediaType(req.headers['content-type']);
  const event = proxyEvent({
    method: match.route.method,
    path,
    resource: match.route.path,
    headers: headerPairs(req),
    query: url.query,
    pathParameters: match.pathParameters,
    // Text bodies are decoded as a decoder does, bytes that are not UTF-8 becoming U+FFFD: what API Gateway does
    // with them is not documented, which is why every type is binary (lib/api-gateway/binary-media-types.ts).
    body: body.length ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: binary,
    requestId,
    sourceIp: sourceAddress(req.socket.remoteAddress),
  });
  const auth = await authorize(event);
  if (!auth.allowed) return sendGatewayResponse(res, auth.response, requestId, auth.message);
  const layerRefusal = await gatewayRefusal(options, auth, { method: match.route.method, resource: match.route.path });
  if (layerRefusal) return sendGatewayResponse(res, layerRefusal, requestId);
  event.requestContext.authorizer = auth.context;
  // Lambda refuses the invocation and API Gateway answers 500; the function never runs.
  if (overLambdaInvokeLimit(event)) {
    gatewayLog.error('Lambda refused the invocation: the event is over its invoke payload limit', {
      requestId,
      operationId: match.route.operationId,
    });
    return sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
  }
  try {
    const { result, instance } = await functions.invoke(match.route, event);
    options.onInvoked?.({
      operationId: match.route.operationId,
      instance,
      statusCode: result?.statusCode,
      requestId,
      customerId: auth.context.customerId,
      request: req,
    });
    if (!result || typeof result.statusCode !== 'number') throw new Error('the function returned no proxy result');
    writeResult(res, result, requestId);
  } catch (error) {
    // API Gateway answers a crashed or malformed integration with its default 5XX response.
    gatewayLog.error('integration failed', { requestId, operationId: match.route.operationId, error });
    sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
  }
}

export async function startGateway(port: number, options: GatewayOptions = {}, host = '127.0.0.1'): Promise<Gateway> {
  const functions = (options.instances ?? 1) > 1 ? workerInstances(options.instances ?? 1) : inProcess;
  if (options.preload) await functions.preload();
  const server = createServer({ requireHostHeader: false, maxHeaderSize: NODE_MAX_HEADER_SIZE }, (req, res) => {
    const requestId = randomUUID();
    rememberRequest(req, requestId);
    handleRequest(req, res, requestId, options, functions).catch((error) => {
      // A request whose stream broke off (the client closed the connection, or its framing was refused and answered
      // by clientError) is the client's doing: nothing is left to answer, and nothing failed here.
      if (req.errored) {
        gatewayLog.warn('request not received whole', { requestId, error });
        res.destroy();
        return;
      }
      gatewayLog.error('gateway failure', { requestId, error });
      if (!res.headersSent) sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
      else res.destroy();
    });
  });
  answerConnectionEdges(server);
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
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await functions.close();
    },
  };
}
