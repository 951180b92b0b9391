/**
 * The size limits in front of a deployed function: the web ACL's 16 KiB (WAF_FILTERED, 413) first; API Gateway's 10 MB
 * (REQUEST_TOO_LARGE, 413); Lambda's 6 MB of event JSON, the body base64: "if the Lambda API rejects the invocation
 * request, API Gateway returns a 500 error code" ("Handling Lambda errors with an API Gateway API"), our DEFAULT_5XX.
 */
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';

export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export const LAMBDA_MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Whether the web ACL's body-size rule refuses a body of this many bytes (`undefined`: larger than was read). */
export function refusedByWebAcl(bodyBytes: number | undefined): boolean {
  return bodyBytes === undefined || bodyBytes > MAX_BODY_BYTES;
}

export function overLambdaInvokeLimit(event: unknown): boolean {
  return Buffer.byteLength(JSON.stringify(event), 'utf8') > LAMBDA_MAX_INVOKE_PAYLOAD_BYTES;
}
