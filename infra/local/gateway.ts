/**
 * The local API Gateway: a node:http server that does what a REST API with stage v1 does in front of our
 * functions, and the WAF web ACL in front of it. It refuses a body the web ACL refuses, matches the route
 * definitions, turns the request into API Gateway's REST proxy event (the body base64-encoded when its Content-Type
 * is one of BINARY_MEDIA_TYPES, as deployed), runs the authorizer and then the same handler modules Lambda runs (in
 * its own process, or as several warm instances of each function: instances.ts),
 * unless the event is over Lambda's invoke payload limit (payload-limits.ts), and answers gateway-level refusals
 * from GATEWAY_RESPONSES, requests Node's parser refuses and requests without exactly one Host header included. One
 * gateway serves one environment, whose configuration is its process's. WAF's rate rule (requests without a key, per
 * address) is not modelled: it is an approximate count over 5 minutes that would make local runs depend on their own
 * history.
 *
 * Methods: a REST API answers a method its resource does not define (HEAD and OPTIONS too: there are no such
 * methods and no CORS preflight here) with the Missing Authentication Token response, which is our 404. A
 * trailing slash is ignored when matching (`/categories/` reaches `/categories`), as API Gateway REST APIs do; the
 * event's `path` keeps it. See docs/api.md, "HTTP details".
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { isBinaryMediaType } from '../../lib/http/binary-media-types.js';
import type { GatewayResponseType } from '../../lib/http/gateway-responses.js';
import { gatewayLog } from '../../lib/log.js';
import { API_STAGE_NAME } from '../../lib/stacks.js';
import { authorize } from './authorizer.js';
import { proxyEvent } from './events.js';
import { rawGatewayResponse, sendGatewayResponse } from './gateway-answers.js';
import { inProcess, type LocalFunctions, workerInstances } from './instances.js';
import { API_GATEWAY_MAX_BODY_BYTES, overLambdaInvokeLimit, refusedByWebAcl } from './payload-limits.js';
import { matchRoute } from './route-match.js';

export interface GatewayOptions {
  /** Extra pages served outside /v1 (the API reference); keyed by exact path. */
  extraRoutes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>>;
  /**
   * Model the WAF web ACL's body-size rule, as every deployed stage has it. Off, the gateway shows what a stage
   * without it would do with a large body (tests of Lambda's invoke payload limit).
   * @default true
   */
  webAcl?: boolean;
  /**
   * Warm instances of each function (instances.ts): 1 runs them in this process; more run each function as that many
   * worker threads with module state of their own, requests going to them in turn.
   * @default 1
   */
  instances?: number;
  /** Import (and start) every function before listening, so that a broken one fails startup. */
  preload?: boolean;
  /** Told which instance of which operation answered each request that reached one (tests). */
  onInvoked?: (invocation: { operationId: string; instance: number; statusCode: number | undefined }) => void;
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
    if (size > API_GATEWAY_MAX_BODY_BYTES) return 'too-large';
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

/**
 * RFC 9112, 3.2: a server answers 400 to an HTTP/1.1 request without a Host header, and to any request with more
 * than one. Node's own check (`requireHostHeader`) writes a bare 400 without going through clientError, so the
 * gateway turns it off and makes the check itself, answering in the Error shape.
 */
function hostRefusal(req: IncomingMessage): string | undefined {
  const hosts = headerPairs(req).filter(([name]) => name.toLowerCase() === 'host').length;
  if (hosts > 1) return 'More than one Host header was sent: send exactly one';
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
    return 'The Host header is missing: an HTTP/1.1 request must send exactly one';
  }
  return undefined;
}

export async function handleRequest(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  options: GatewayOptions = {},
  functions: LocalFunctions = inProcess,
): Promise<void> {
  const hostProblem = hostRefusal(req);
  if (hostProblem) {
    // As for the requests Node's parser refuses: the connection closes, the rest of the stream unread.
    res.shouldKeepAlive = false;
    return sendGatewayResponse(res, 'DEFAULT_4XX', requestId, hostProblem);
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const extra = options.extraRoutes?.[url.pathname];
  if (extra && req.method === 'GET') return extra(req, res);

  const stagePrefix = `/${API_STAGE_NAME}`;
  const underStage = url.pathname === stagePrefix || url.pathname.startsWith(`${stagePrefix}/`);
  const path = underStage ? url.pathname.slice(stagePrefix.length) || '/' : '';
  const resourcePath = path.replace(/(.)\/$/, '$1');
  const match = underStage ? matchRoute(req.method ?? 'GET', resourcePath) : undefined;
  const body = await readBody(req);
  // WAF evaluates a request before API Gateway routes it.
  if ((options.webAcl ?? true) && refusedByWebAcl(body === 'too-large' ? undefined : body.length)) {
    return sendGatewayResponse(res, 'WAF_FILTERED', requestId);
  }
  if (!match) return sendGatewayResponse(res, 'MISSING_AUTHENTICATION_TOKEN', requestId);
  if (body === 'too-large') return sendGatewayResponse(res, 'REQUEST_TOO_LARGE', requestId);

  const binary = body.length > 0 && isBinaryMediaType(req.headers['content-type']);
  const event = proxyEvent({
    method: match.route.method,
    path,
    resource: match.route.path,
    headers: headerPairs(req),
    query: [...url.searchParams],
    pathParameters: match.pathParameters,
    // Text bodies are decoded as a decoder does, bytes that are not UTF-8 becoming U+FFFD: what API Gateway does
    // with them is not documented, which is why every type is binary (lib/http/binary-media-types.ts).
    body: body.length ? body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: binary,
    requestId,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
  });
  const auth = await authorize(event);
  if (!auth.allowed) return sendGatewayResponse(res, auth.response, requestId, auth.message);
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
    options.onInvoked?.({ operationId: match.route.operationId, instance, statusCode: result?.statusCode });
    if (!result || typeof result.statusCode !== 'number') throw new Error('the function returned no proxy result');
    writeResult(res, result, requestId);
  } catch (error) {
    // API Gateway answers a crashed or malformed integration with its default 5XX response.
    gatewayLog.error('integration failed', { requestId, operationId: match.route.operationId, error });
    sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
  }
}

/** A well-formed request line: method token, target, version. */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]+ HTTP\/1\.[01]\r?$/;

/** llhttp's error, as Node hands it to clientError: its code, its reason in words, and the bytes it was parsing. */
type ParseError = { code?: string; reason?: string; rawPacket?: Buffer };

/** What llhttp says (in `reason`) when it refuses a request for carrying both Content-Length and Transfer-Encoding. */
const BOTH_LENGTHS = /can't be present with/;

const BODY_LENGTH_MESSAGES = {
  both: 'The length of the request body is ambiguous or invalid: send either Content-Length or Transfer-Encoding: chunked, not both',
  contentLength: 'The Content-Length header is not valid: send it once, as the length of the body in bytes (digits only)',
  transferEncoding: 'The Transfer-Encoding is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked',
  chunked: 'The chunked request body is malformed: each chunk must start with its size in hexadecimal digits',
};

/**
 * What the gateway answers a request Node's HTTP parser refused (llhttp's error codes): a well-formed request line
 * with a method Node does not know is no operation (404, as API Gateway answers a method no resource has); anything
 * else is a malformed request (400), saying what is wrong where the code tells. llhttp refuses both Content-Length and
 * Transfer-Encoding under the code of whichever header came second, so that case is told by its reason.
 */
function parserRefusal(error: ParseError): { type: GatewayResponseType; message?: string } {
  const bothLengths = BOTH_LENGTHS.test(error.reason ?? '');
  switch (error.code) {
    case 'HPE_INVALID_METHOD': {
      const line = error.rawPacket?.toString('latin1').split('\n', 1)[0] ?? '';
      return REQUEST_LINE.test(line) ? { type: 'MISSING_AUTHENTICATION_TOKEN' } : parserRefusal({});
    }
    case 'HPE_HEADER_OVERFLOW':
      return { type: 'DEFAULT_4XX', message: 'The request headers are too large: send fewer or shorter headers' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { type: 'DEFAULT_4XX', message: bothLengths ? BODY_LENGTH_MESSAGES.both : BODY_LENGTH_MESSAGES.contentLength };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { type: 'DEFAULT_4XX', message: bothLengths ? BODY_LENGTH_MESSAGES.both : BODY_LENGTH_MESSAGES.transferEncoding };
    case 'HPE_INVALID_CHUNK_SIZE':
      return { type: 'DEFAULT_4XX', message: BODY_LENGTH_MESSAGES.chunked };
    default:
      return { type: 'DEFAULT_4XX', message: 'The request is not valid HTTP/1.1: check the request line and the headers' };
  }
}

/** Each connection's latest request and its id. */
const latestRequest = new WeakMap<Socket, { req: IncomingMessage; requestId: string }>();

/**
 * The id of the request a parser error on this connection belongs to: the request whose body is being read (whose
 * handler then fails too, and logs it), else a new one, the error being in a request of its own.
 */
function refusedRequestId(socket: Socket): string {
  const latest = latestRequest.get(socket);
  return latest && !latest.req.complete ? latest.requestId : randomUUID();
}

/** Node's clientError: answer in the Error shape where the socket can still be written to, then close it. */
function answerClientError(error: Error & ParseError, socket: Socket): void {
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT';
  if (error.code === 'ECONNRESET' || timedOut || !socket.writable) {
    socket.destroy();
    return;
  }
  const { type, message } = parserRefusal(error);
  socket.end(rawGatewayResponse(type, refusedRequestId(socket), message));
}

export async function startGateway(port: number, options: GatewayOptions = {}, host = '127.0.0.1'): Promise<Gateway> {
  const functions = (options.instances ?? 1) > 1 ? workerInstances(options.instances ?? 1) : inProcess;
  if (options.preload) await functions.preload();
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    const requestId = randomUUID();
    latestRequest.set(req.socket, { req, requestId });
    handleRequest(req, res, requestId, options, functions).catch((error) => {
      gatewayLog.error('gateway failure', { requestId, error });
      if (!res.headersSent) sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
      else res.destroy();
    });
  });
  server.on('clientError', answerClientError);
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
