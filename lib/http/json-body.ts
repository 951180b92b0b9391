/**
 * The request body of a route that takes one, read once, in the order a client fixes things: size (413), presence,
 * media type and charset (415, media-type.ts), strict UTF-8, nesting depth (json-depth.ts), JSON syntax through
 * @middy/http-json-body-parser (400 MALFORMED_JSON), then the route's schema (400 VALIDATION_FAILED). Its errors
 * are answered after admission, so a bad body is counted.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { Context } from 'aws-lambda';
import type { ErrorCode } from './error-codes.js';
import { HttpError } from './error-codes.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { checkBodyMediaType, JSON_MEDIA_TYPE } from './media-type.js';
import type { ApiEvent } from './response.js';
import { forbiddenJsonKey } from './to-http-error.js';
import { type BodySchema, validateBody } from './validation.js';

export const MAX_BODY_BYTES = 16 * 1024;

/** The codes this step answers with, for the routes' documentation. */
export const BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

// fatal: a malformed sequence is an error, not U+FFFD; ignoreBOM: a byte order mark stays in the text, where
// the JSON parser refuses it (RFC 8259 forbids sending one).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Its media type check is off: ours ran already, and is stricter (no +json suffixes) and more lenient (white space
// before parameters) in the ways media-type.ts says.
const parser = httpJsonBodyParser({ disableContentTypeCheck: true });

/** A body as its schema accepted it, and the JSON it was parsed from (what an Idempotency-Key's fingerprint covers). */
export interface RequestBody {
  value: unknown;
  json: unknown;
}

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

/** The JSON of `text`, parsed by the middleware's `before` on a copy of the event that holds the decoded text. */
function parsed(text: string, event: ApiEvent, context: Context): unknown {
  const request = { event: { ...event, body: text, isBase64Encoded: false }, context, response: undefined, error: undefined, internal: {} };
  try {
    parser.before?.(request);
  } catch (error) {
    if (forbiddenJsonKey(error) === undefined) throw error;
    // The parser refuses a `__proto__` key (or a `constructor` holding a `prototype`) without handing over the
    // value. JSON.parse gives it (as an own property: nothing reaches a prototype), so that the schema check refuses
    // it as it refuses any unknown field, naming it.
    return JSON.parse(text);
  }
  return request.event.body;
}

export function requestBody(schema: BodySchema, event: ApiEvent, context: Context): RequestBody {
  const { body, isBase64Encoded, headers } = event;
  const bytes = body == null ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > MAX_BODY_BYTES) {
    throw new HttpError('PAYLOAD_TOO_LARGE', `The request body is ${bytes.length} bytes; the limit is ${MAX_BODY_BYTES} bytes (16 KiB)`);
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
  if (nestsDeeperThan(text)) {
    throw new HttpError(
      'VALIDATION_FAILED',
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH} levels`,
    );
  }
  const json = parsed(text, event, context);
  const result = validateBody(schema, json);
  if (!result.ok) throw new HttpError('VALIDATION_FAILED', result.message);
  return { value: result.value, json };
}
