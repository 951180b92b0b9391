/**
 * Checks a request body before it is parsed, in the order a client fixes things: size (413), presence (400),
 * media type (415). Headers are already lower-cased by @middy/http-header-normalizer.
 */
import type middy from '@middy/core';
import { HttpError } from './errors.js';
import type { ApiEvent, ApiResult } from './response.js';

export const MAX_BODY_BYTES = 16 * 1024;
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

export function bodyGuard(): middy.MiddlewareObj<ApiEvent, ApiResult | undefined> {
  return {
    before: function bodyGuardBefore(request) {
      const { body, isBase64Encoded, headers } = request.event;
      const bytes = body == null ? 0 : isBase64Encoded ? Buffer.from(body, 'base64').length : Buffer.byteLength(body);
      if (bytes > MAX_BODY_BYTES) {
        throw new HttpError('PAYLOAD_TOO_LARGE', `The request body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (16 KiB)`);
      }
      if (bytes === 0) {
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
    },
  };
}
