/**
 * The size limits in front of a deployed function, as the local gateway models them, and who answers each:
 *
 * 1. The WAF web ACL's body-size rule (infra/constructs/web-acl.ts): a body over the contract's 16 KiB is refused
 *    first, with API Gateway's WAF_FILTERED response (413 PAYLOAD_TOO_LARGE), whatever the path.
 * 2. API Gateway's own payload limit, 10 MB: its REQUEST_TOO_LARGE response (413). Only reachable without rule 1.
 * 3. Lambda's invoke payload limit for a synchronous invocation, 6 MB of event JSON: the body travels in the event
 *    base64-encoded (every media type is binary), a third larger. Lambda refuses a bigger invocation
 *    (RequestEntityTooLargeException, "Request must be smaller than 6291456 bytes"), and "if the Lambda API rejects
 *    the invocation request, API Gateway returns a 500 error code" (AWS Lambda Developer Guide, "Handling Lambda
 *    errors with an API Gateway API"): our DEFAULT_5XX, 500 INTERNAL_ERROR. Only reachable without rule 1, which is
 *    what that rule is for.
 */
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';

/** API Gateway's REST API payload limit. */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Lambda's limit on a synchronous invocation's request payload (the event JSON), as Lambda states it in bytes. */
export const LAMBDA_MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Whether the web ACL's body-size rule refuses a body of this many bytes (`undefined`: larger than was read). */
export function refusedByWebAcl(bodyBytes: number | undefined): boolean {
  return bodyBytes === undefined || bodyBytes > MAX_BODY_BYTES;
}

/** Whether Lambda refuses to invoke a function with this event. */
export function overLambdaInvokeLimit(event: unknown): boolean {
  return Buffer.byteLength(JSON.stringify(event), 'utf8') > LAMBDA_MAX_INVOKE_PAYLOAD_BYTES;
}
