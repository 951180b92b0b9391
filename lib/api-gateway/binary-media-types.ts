/**
 * The REST API's binaryMediaTypes, set by the CDK stack and modelled by the local gateway. A body whose Content-Type
 * matches reaches the function base64-encoded, any other as a UTF-8 string ("Content type conversions in API Gateway",
 * docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings-workflow.html). AWS does not say
 * what becomes of bytes that are not UTF-8 as text, so every type is binary and the function refuses bad UTF-8 itself.
 */
import { parseContentType } from '../http/json-body.js';

/**
 * Answers are unchanged: API Gateway decodes a function's body from base64 only when it says isBase64Encoded, which
 * ours never do ("Return binary media from a Lambda proxy integration in API Gateway"). Mock integrations (a CORS
 * preflight, a health check) are reported to answer 500 with every type binary: one added later needs a function.
 */
export const BINARY_MEDIA_TYPES: readonly string[] = ['*/*'];

/** Whether a request with this Content-Type has its body passed as binary; `*` matches a whole type or subtype. */
export function isBinaryMediaType(contentType: string | undefined, patterns: readonly string[] = BINARY_MEDIA_TYPES): boolean {
  const parsed = contentType === undefined ? undefined : parseContentType(contentType);
  if (!parsed) return false;
  const [type, subtype] = parsed.type.split('/');
  return patterns.some((pattern) => {
    const [wantType, wantSubtype] = pattern.toLowerCase().split('/');
    return (wantType === '*' || wantType === type) && (wantSubtype === '*' || wantSubtype === subtype);
  });
}
