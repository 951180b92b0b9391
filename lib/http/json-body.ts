/**
 * The JSON request body as Middy middlewares: the raw checks in the order a client fixes things (size 413, presence,
 * media type and charset 415, strict UTF-8, nesting depth), then @middy/http-json-body-parser (400 MALFORMED_JSON).
 * `read` checks the schema (400) and answers every refusal after admission, so that a bad body is counted.
 */
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { type ErrorCode, HttpError } from './error-codes.js';
import type { ApiEvent, ApiResult } from './response.js';
import { type BodySchema, validateBody } from './validation.js';

export const MAX_BODY_BYTES = 16 * 1024;
/** Arrays and objects inside each other that a request body may hold: `{"name":"Dog"}` is 1 level deep. */
export const MAX_JSON_DEPTH = 32;
export const JSON_MEDIA_TYPE = 'application/json';

/** The codes this step answers with, for the routes' documentation. */
export const BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** A body as its schema accepted it, and the JSON it was parsed from (what an Idempotency-Key's fingerprint covers). */
export interface RequestBody {
  value: unknown;
  json: unknown;
}

/** The media type and parameters of a Content-Type value (RFC 9110, 8.3.1); type and parameter names lower-cased. */
export function parseContentType(value: string): { type: string; params: Record<string, string> } | undefined {
  const [head = '', ...rest] = value.split(';');
  const type = head.trim().toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(type)) return undefined;
  const params: Record<string, string> = {};
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    const raw = part.slice(at + 1).trim();
    params[name] = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return { type, params };
}

/**
 * Exactly `application/json` (RFC 8259), in any letter case, with a `charset` only if it says UTF-8; other parameters
 * ignored. Suffixes such as `+json` name formats with other rules, which the API does not implement: refused.
 */
function mediaTypeError(contentType: string | undefined): HttpError | undefined {
  const refuse = (message: string) => new HttpError('UNSUPPORTED_MEDIA_TYPE', message);
  if (!contentType?.trim()) return refuse(`The Content-Type header is missing: send the body as ${JSON_MEDIA_TYPE}`);
  const parsed = parseContentType(contentType);
  if (parsed?.type !== JSON_MEDIA_TYPE) {
    return refuse(`Content-Type "${contentType.slice(0, 100)}" is not supported: send the body as ${JSON_MEDIA_TYPE}`);
  }
  const charset = parsed.params.charset;
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    return refuse(
      `The charset "${charset.slice(0, 40)}" is not supported: send the body as UTF-8 (${JSON_MEDIA_TYPE}, or ${JSON_MEDIA_TYPE}; charset=utf-8)`,
    );
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/**
 * Deeper than MAX_JSON_DEPTH, by one pass without recursion, so that no check after it meets a pathological depth
 * (the parser's `__proto__` guard is a reviver, which JSON.parse walks recursively). Brackets in strings do not count.
 */
function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      depth++;
      if (depth > MAX_JSON_DEPTH) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}

// fatal: a malformed sequence is an error, not U+FFFD; ignoreBOM: a byte order mark stays in the text, where
// the JSON parser refuses it (RFC 8259 forbids sending one).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The raw checks; leaves the decoded text in the event's body, which the parser reads next. */
function rawChecks({ event }: middy.Request<ApiEvent, ApiResult, Error, Context>): void {
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
  if (nestsTooDeep(text)) {
    throw new HttpError(
      'VALIDATION_FAILED',
      `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH} levels`,
    );
  }
  event.body = text;
  event.isBase64Encoded = false;
}

/** What @middy/http-json-body-parser throws (an HttpError of @middy/util, caused by the package). */
const ParserErrorSchema = v.object({
  message: v.string(),
  cause: v.object({ package: v.literal('@middy/http-json-body-parser') }),
});

/**
 * A route's body step, handed over by its handler file: its parts of the Middy chain, and `read` (after admission
 * started): the parsed body checked against the route's schema, or the middlewares' refusal (`failure`) to answer.
 */
export interface BodyStep {
  middlewares: middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context>[];
  read(schema: BodySchema, event: ApiEvent, failure?: unknown): RequestBody;
}

export const jsonBody: BodyStep = {
  // Its media type check is off: ours ran already, stricter (no +json suffixes) and more lenient (white space).
  middlewares: [{ before: rawChecks }, httpJsonBodyParser<ApiEvent>({ disableContentTypeCheck: true })],

  read(schema: BodySchema, event: ApiEvent, failure?: unknown): RequestBody {
    // The parser has put the parsed value where the text was.
    let json: unknown = event.body;
    if (failure !== undefined) {
      const parser = v.safeParse(ParserErrorSchema, failure);
      if (!parser.success) throw failure;
      // A `__proto__` key (or a `constructor` holding a `prototype`): the parser refuses it inside its reviver, so the
      // text is parsed here again (to an own property) for the schema to word the answer from the whole value.
      if (parser.output.message !== 'Forbidden key in JSON body') {
        throw new HttpError('MALFORMED_JSON', 'The request body is not valid JSON');
      }
      json = JSON.parse(String(event.body));
    }
    const result = validateBody(schema, json);
    if (!result.ok) throw new HttpError('VALIDATION_FAILED', result.message);
    return { value: result.value, json };
  },
};
