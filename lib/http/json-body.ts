/**
 * The request body of a route that takes one: checked in the order a client fixes things, size (413), presence
 * (400), media type and charset (415, see media-type.ts), UTF-8 and JSON syntax (400 MALFORMED_JSON), then the
 * route's schema (400 VALIDATION_FAILED naming the field; a string that is not well-formed Unicode is refused
 * there too). The handler gets the schema's output as `context.body`. Headers are already lower-cased by
 * @middy/http-header-normalizer.
 *
 * The deployed API lists every media type as binary (BINARY_MEDIA_TYPES), so API Gateway hands the body over as
 * the client's bytes, base64-encoded, and invalid UTF-8 is seen here rather than replaced on the way. A body passed
 * as text (isBase64Encoded false: handler tests, or an API without that setting) is checked as the string it is.
 */

import type { OperationMiddleware } from './context.js';
import type { ErrorCode } from './errors.js';
import { HttpError } from './errors.js';
import { checkBodyMediaType, JSON_MEDIA_TYPE } from './media-type.js';
import { type BodySchema, validateBody } from './validation.js';

export const MAX_BODY_BYTES = 16 * 1024;

/** The codes this step answers with, for the routes' documentation. */
export const BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

// fatal: a malformed sequence is an error, not U+FFFD; ignoreBOM: a byte order mark stays in the text, where
// JSON.parse refuses it (RFC 8259 forbids sending one).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function mediaTypeError(contentType: string | undefined): HttpError | undefined {
  const check = checkBodyMediaType(contentType);
  if (check.ok) return undefined;
  const message = {
    missing: `The Content-Type header is missing: send the body as ${JSON_MEDIA_TYPE}`,
    type: `Content-Type "${check.detail}" is not supported: send the body as ${JSON_MEDIA_TYPE}`,
    charset: `The charset "${check.detail}" is not supported: send the body as UTF-8 (${JSON_MEDIA_TYPE}, or ${JSON_MEDIA_TYPE}; charset=utf-8)`,
  }[check.reason];
  return new HttpError('UNSUPPORTED_MEDIA_TYPE', message);
}

export function jsonBody(schema: BodySchema): OperationMiddleware {
  return {
    before: function jsonBodyBefore(request) {
      const { body, isBase64Encoded, headers } = request.event;
      const bytes = body == null ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
      if (bytes.length > MAX_BODY_BYTES) {
        throw new HttpError(
          'PAYLOAD_TOO_LARGE',
          `The request body is ${bytes.length} bytes; the limit is ${MAX_BODY_BYTES} bytes (16 KiB)`,
        );
      }
      if (bytes.length === 0) {
        throw new HttpError('MALFORMED_JSON', 'The request body is missing: send a JSON object such as {"name":"Dog"}');
      }
      const unsupported = mediaTypeError(headers?.['content-type']);
      if (unsupported) throw unsupported;
      let text: string;
      try {
        text = strictUtf8.decode(bytes);
      } catch {
        throw new HttpError('MALFORMED_JSON', 'The request body is not valid UTF-8: send JSON encoded as UTF-8');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new HttpError('MALFORMED_JSON', 'The request body is not valid JSON');
      }
      const result = validateBody(schema, parsed);
      if (!result.ok) throw new HttpError('VALIDATION_FAILED', result.message);
      request.context.body = result.value;
    },
  };
}
