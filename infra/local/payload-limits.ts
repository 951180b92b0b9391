/**
 * The size limits in front of a deployed function: the web ACL's 16 KiB (WAF_FILTERED, 413) first; API Gateway's 10 MB
 * (REQUEST_TOO_LARGE, 413); Lambda's 6 MB of event JSON, the body base64: "if the Lambda API rejects the invocation
 * request, API Gateway returns a 500 error code" ("Handling Lambda errors with an API Gateway API"), our DEFAULT_5XX.
 */
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import { NODE_MAX_HEADER_SIZE } from './malformed-requests.js';

export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export const LAMBDA_MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Whether the web ACL's body-size rule refuses a body of this many bytes (`undefined`: larger than was read). */
export function refusedByWebAcl(bodyBytes: number | undefined): boolean {
  return bodyBytes === undefined || bodyBytes > MAX_BODY_BYTES;
}

/**
 * Everything of an event but its body: the request line and headers (at most NODE_MAX_HEADER_SIZE bytes, each byte in
 * the event at most four times: a header in headers and multiValueHeaders, Host and User-Agent once more; the path in
 * path, requestContext.path and pathParameters; the query twice), at most 6 bytes of JSON a character (`\u001f`), and
 * the fixed fields and the authorizer's context, under 64 KiB.
 */
export const EVENT_BYTES_BESIDE_BODY = 4 * 6 * NODE_MAX_HEADER_SIZE + 64 * 1024;

export function overLambdaInvokeLimit(event: { body: string | null }): boolean {
  // A body this short cannot take the event over the limit, and the event is not serialized to be measured
  // (docs/performance.md, "The local gateway's own work").
  if ((event.body?.length ?? 0) * 6 + EVENT_BYTES_BESIDE_BODY <= LAMBDA_MAX_INVOKE_PAYLOAD_BYTES) return false;
  return Buffer.byteLength(JSON.stringify(event), 'utf8') > LAMBDA_MAX_INVOKE_PAYLOAD_BYTES;
}
