/**
 * What the local gateway answers a request that is not well-formed HTTP/1.1 (Node's parser refusals, Host header count,
 * API Gateway's URL and header limits), in the Error shape; see docs/api.md, "HTTP details".
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayResponseType } from '../../lib/api-gateway/gateway-responses.js';
import { rawGatewayResponse } from './gateway-answers.js';

/** RFC 9112, 3.2, checked here: Node's own check (`requireHostHeader`) writes a bare 400, not the Error shape. */
export function hostRefusal(req: IncomingMessage): string | undefined {
  const hosts = req.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length;
  if (hosts > 1) return 'More than one Host header was sent: send exactly one';
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor === 1)
    return 'The Host header is missing: an HTTP/1.1 request must send exactly one';
  return undefined;
}

/**
 * "Quotas for configuring and running a REST API in API Gateway": a regional API's URL, 10240 characters, and all
 * header names and values, 10240 bytes; no documented answer: the default 4XX, our 400. The URL is the request target.
 */
export const API_GATEWAY_MAX_URL_CHARS = 10_240;
export const API_GATEWAY_MAX_HEADER_BYTES = 10_240;
export const NODE_MAX_HEADER_SIZE = API_GATEWAY_MAX_URL_CHARS + API_GATEWAY_MAX_HEADER_BYTES + 1_024;

export function sizeRefusal(req: IncomingMessage): string | undefined {
  if ((req.url ?? '').length > API_GATEWAY_MAX_URL_CHARS)
    return `The URL is too long: send at most ${API_GATEWAY_MAX_URL_CHARS} characters of path and query string`;
  let bytes = 0;
  for (const field of req.rawHeaders) bytes += Buffer.byteLength(field, 'latin1') + 2; // ": " after a name, CRLF after a value
  if (bytes <= API_GATEWAY_MAX_HEADER_BYTES) return undefined;
  return `The request headers are too large: send fewer or shorter headers (at most ${API_GATEWAY_MAX_HEADER_BYTES} bytes in all)`;
}

const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]+ HTTP\/1\.[01]\r?$/;

type ParseError = { code?: string; reason?: string; rawPacket?: Buffer };

const BOTH_LENGTHS = /can't be present with/;

const BODY_LENGTH_MESSAGES = {
  both: 'The length of the request body is ambiguous or invalid: send either Content-Length or Transfer-Encoding: chunked, not both',
  contentLength: 'The Content-Length header is not valid: send it once, as the length of the body in bytes (digits only)',
  transferEncoding: 'The Transfer-Encoding is not supported: send the body with Content-Length, or with Transfer-Encoding: chunked',
  chunked: 'The chunked request body is malformed: each chunk must start with its size in hexadecimal digits',
};

/**
 * A request Node's parser refused: a well-formed line with a method Node does not know is no operation (404); anything
 * else a 400 saying what is wrong where the code tells (both Content-Length and Transfer-Encoding: by `reason`).
 */
function parserRefusal(error: ParseError): { type: GatewayResponseType; message?: string } {
  const bothLengths = BOTH_LENGTHS.test(error.reason ?? '');
  switch (error.code) {
    case 'HPE_INVALID_METHOD': {
      const line = error.rawPacket?.toString('latin1').split('\n', 1)[0] ?? '';
      return REQUEST_LINE.test(line) ? { type: 'MISSING_AUTHENTICATION_TOKEN' } : parserRefusal({});
    }
    case 'HPE_HEADER_OVERFLOW':
      return {
        type: 'DEFAULT_4XX',
        message: `The URL or the headers are too large: send at most ${API_GATEWAY_MAX_URL_CHARS} characters of URL and ${API_GATEWAY_MAX_HEADER_BYTES} bytes of headers`,
      };
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

const latestRequest = new WeakMap<Socket, { req: IncomingMessage; requestId: string }>();

export function rememberRequest(req: IncomingMessage, requestId: string): void {
  latestRequest.set(req.socket, { req, requestId });
}

export function requestIdOf(req: IncomingMessage): string | undefined {
  const latest = latestRequest.get(req.socket);
  return latest?.req === req ? latest.requestId : undefined;
}

/** A parser error belongs to the request whose body is being read, else to a request of its own. */
function refusedRequestId(socket: Socket): string {
  const latest = latestRequest.get(socket);
  return latest && !latest.req.complete ? latest.requestId : randomUUID();
}

export function answerClientError(error: Error & ParseError, socket: Socket): void {
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT';
  if (error.code === 'ECONNRESET' || timedOut || !socket.writable) {
    socket.destroy();
    return;
  }
  const { type, message } = parserRefusal(error);
  socket.end(rawGatewayResponse(type, refusedRequestId(socket), message));
}

/** No REST API resource can have CONNECT: the Missing Authentication Token 404 (Node would close without a byte). */
function answerConnect(_req: IncomingMessage, socket: Socket): void {
  if (socket.writable) socket.end(rawGatewayResponse('MISSING_AUTHENTICATION_TOKEN', randomUUID()));
  else socket.destroy();
}

/**
 * Parser refusals, CONNECT, and a client that half-closes after its request (`nc -N`): by default Node aborts the
 * request, so a POST already stored would get no answer; with `httpAllowHalfOpen` the answer is written first.
 */
export function answerConnectionEdges(server: Server): void {
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  Object.assign(server, { httpAllowHalfOpen: true });
}
