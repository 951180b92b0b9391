/**
 * What the local gateway answers a request that is not well-formed HTTP/1.1, before there is a request to route:
 * the ones Node's parser refuses (its clientError event, answered on the raw socket), the ones without exactly one
 * Host header, and the ones over API Gateway's URL or header limits. Each is in the Error shape, with a message
 * saying what is wrong where the parser tells; see docs/api.md, "HTTP details".
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayResponseType } from '../../lib/api-gateway/gateway-responses.js';
import { rawGatewayResponse } from './gateway-answers.js';

/**
 * RFC 9112, 3.2: a server answers 400 to an HTTP/1.1 request without a Host header, and to any request with more
 * than one. Node's own check (`requireHostHeader`) writes a bare 400 without going through clientError, so the
 * gateway turns it off and makes the check itself, answering in the Error shape.
 */
export function hostRefusal(req: IncomingMessage): string | undefined {
  const hosts = req.rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length;
  if (hosts > 1) return 'More than one Host header was sent: send exactly one';
  if (hosts === 0 && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
    return 'The Host header is missing: an HTTP/1.1 request must send exactly one';
  }
  return undefined;
}

/**
 * API Gateway's limits for a regional REST API ("Quotas for configuring and running a REST API in API Gateway"):
 * "Length, in characters, of the URL for a regional API", 10240, and "Total combined size of all header values,
 * including header names, values, any line terminators, and white space", 10240 bytes. AWS documents no answer of
 * its own for either, so a request over them gets API Gateway's default 4XX response, our 400. Locally the URL is
 * counted from the request target (path and query string): deployed, the scheme and host count too.
 */
export const API_GATEWAY_MAX_URL_CHARS = 10_240;
export const API_GATEWAY_MAX_HEADER_BYTES = 10_240;
/** Node's own limit (request line and headers), above both, so that the limits above are the ones that answer. */
export const NODE_MAX_HEADER_SIZE = API_GATEWAY_MAX_URL_CHARS + API_GATEWAY_MAX_HEADER_BYTES + 1_024;

/** Over API Gateway's URL or header limits: what is wrong, or nothing. */
export function sizeRefusal(req: IncomingMessage): string | undefined {
  if ((req.url ?? '').length > API_GATEWAY_MAX_URL_CHARS) {
    return `The URL is too long: send at most ${API_GATEWAY_MAX_URL_CHARS} characters of path and query string`;
  }
  let bytes = 0;
  for (const field of req.rawHeaders) bytes += Buffer.byteLength(field, 'latin1') + 2; // ": " after a name, CRLF after a value
  if (bytes <= API_GATEWAY_MAX_HEADER_BYTES) return undefined;
  return `The request headers are too large: send fewer or shorter headers (at most ${API_GATEWAY_MAX_HEADER_BYTES} bytes in all)`;
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

/** Each connection's latest request and its id. */
const latestRequest = new WeakMap<Socket, { req: IncomingMessage; requestId: string }>();

/** Called for every request the server takes, with the id the gateway gave it. */
export function rememberRequest(req: IncomingMessage, requestId: string): void {
  latestRequest.set(req.socket, { req, requestId });
}

/** The id the gateway gave a request it has taken (read by `npm start`'s line per request). */
export function requestIdOf(req: IncomingMessage): string | undefined {
  const latest = latestRequest.get(req.socket);
  return latest?.req === req ? latest.requestId : undefined;
}

/**
 * The id of the request a parser error on this connection belongs to: the request whose body is being read (whose
 * handler then fails too, and logs it), else a new one, the error being in a request of its own.
 */
function refusedRequestId(socket: Socket): string {
  const latest = latestRequest.get(socket);
  return latest && !latest.req.complete ? latest.requestId : randomUUID();
}

/** Node's clientError: answer in the Error shape where the socket can still be written to, then close it. */
export function answerClientError(error: Error & ParseError, socket: Socket): void {
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT';
  if (error.code === 'ECONNRESET' || timedOut || !socket.writable) {
    socket.destroy();
    return;
  }
  const { type, message } = parserRefusal(error);
  socket.end(rawGatewayResponse(type, refusedRequestId(socket), message));
}

/**
 * A CONNECT request: no REST API resource can have that method (API Gateway's methods are DELETE, GET, HEAD,
 * OPTIONS, PATCH, POST, PUT and ANY), and API Gateway answers "a method or resource that does not exist" with its
 * Missing Authentication Token response, our 404. Node hands CONNECT to the server's connect event and, without a
 * listener, closes the connection without a byte. A tunnel is never opened, so the connection closes after it.
 */
function answerConnect(_req: IncomingMessage, socket: Socket): void {
  if (socket.writable) socket.end(rawGatewayResponse('MISSING_AUTHENTICATION_TOKEN', randomUUID()));
  else socket.destroy();
}

/**
 * How the gateway's server treats a connection at its edges: requests its parser refuses (answered above), CONNECT,
 * and a client that half-closes after its request (`socket.end(request)`, as `nc -N` does). By default Node's HTTP
 * server (its `httpAllowHalfOpen`, false) aborts the request and ends the connection when the client's side ends, so
 * a POST already stored would get no answer; with it set, the answer is written and then the connection ends.
 */
export function answerConnectionEdges(server: Server): void {
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  Object.assign(server, { httpAllowHalfOpen: true });
}
