/**
 * The request body of a route that takes one: checked in the order a client fixes things, size (413), presence
 * (400), media type (415), JSON syntax (400 MALFORMED_JSON), then the route's schema (400 VALIDATION_FAILED
 * naming the field). The handler gets the schema's output as `context.body`. Headers are already lower-cased by
 * @middy/http-header-normalizer.
 */

import type { OperationMiddleware } from './context.js';
import type { ErrorCode } from './errors.js';
import { HttpError } from './errors.js';
import { type BodySchema, validateBody } from './validation.js';

export const MAX_BODY_BYTES = 16 * 1024;
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

/** The codes this step answers with, for the routes' documentation. */
export const BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

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
      const contentType = headers?.['content-type'];
      if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
        throw new HttpError(
          'UNSUPPORTED_MEDIA_TYPE',
          contentType
            ? `Content-Type "${contentType.slice(0, 100)}" is not supported: send the body as application/json`
            : 'The Content-Type header is missing: send the body as application/json',
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch {
        throw new HttpError('MALFORMED_JSON', 'The request body is not valid JSON');
      }
      const result = validateBody(schema, parsed);
      if (!result.ok) throw new HttpError('VALIDATION_FAILED', result.message);
      request.context.body = result.value;
    },
  };
}
