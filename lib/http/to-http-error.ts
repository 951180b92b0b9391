/**
 * Errors into the contract's Error results: the one place where domain errors, SDK failures, the JSON body
 * parser's and Middy's own errors become codes (finish.ts makes the answer); the idempotency runner turns its
 * library's refusals into HttpErrors.
 * Internals never leak: anything unknown becomes INTERNAL_ERROR and is logged with the request id. Library errors
 * are recognised by name, not by class, so that this module, which every function carries, imports none of them.
 */
import * as v from 'valibot';
import { isDynamoUnavailable, UNAVAILABLE_RETRY_AFTER } from '../dynamo/outage.js';
import { log } from '../log.js';
import { type ErrorCode, HttpError } from './error-codes.js';
import type { Result } from './response.js';

const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry after the time in Retry-After';
/**
 * The domain's errors (lib/categories/errors.ts), by name like the libraries' below, so that a function that never
 * throws them does not carry their module.
 */
const DOMAIN_ERRORS: Readonly<Record<string, { code: ErrorCode; headers?: Record<string, string> }>> = {
  CategoryExists: { code: 'CATEGORY_EXISTS' },
  CategoryLimitReached: { code: 'CATEGORY_LIMIT_REACHED' },
  CategoryContention: { code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } },
};

/** What @middy/http-json-body-parser throws (an HttpError of @middy/util, caused by the package). */
const BodyParserErrorSchema = v.object({
  statusCode: v.number(),
  message: v.string(),
  cause: v.object({ package: v.literal('@middy/http-json-body-parser'), data: v.optional(v.unknown()) }),
});
const FORBIDDEN_KEY = 'Forbidden key in JSON body';

/**
 * The key of a body the parser refused for holding `__proto__` (or a `constructor` with a `prototype`): not an
 * answer of its own, since such a body is checked by its schema like any other, which names the field.
 */
export function forbiddenJsonKey(error: unknown): string | undefined {
  const parsed = v.safeParse(BodyParserErrorSchema, error);
  return parsed.success && parsed.output.message === FORBIDDEN_KEY ? String(parsed.output.cause.data) : undefined;
}

function bodyParserRefusal(error: unknown): HttpError | undefined {
  const parsed = v.safeParse(BodyParserErrorSchema, error);
  if (!parsed.success) return undefined;
  // Its 422 is JSON it could not parse (a forbidden key never gets here: see forbiddenJsonKey). The body step checks
  // the media type before the parser runs (media-type.ts), with the parser's own check off: its 415 is mapped in case.
  if (parsed.output.statusCode === 415) return new HttpError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  return new HttpError('MALFORMED_JSON', 'The request body is not valid JSON');
}

function toHttpError(error: unknown, requestId: string): HttpError {
  if (error instanceof HttpError) return error;
  const domain = error instanceof Error && Object.hasOwn(DOMAIN_ERRORS, error.name) ? DOMAIN_ERRORS[error.name] : undefined;
  if (domain && error instanceof Error) return new HttpError(domain.code, error.message, domain.headers);
  const refusal = bodyParserRefusal(error);
  if (refusal) return refusal;
  // Middy's TimeoutError (a handler still running near Lambda's timeout) is one of these by its name.
  if (isDynamoUnavailable(error)) {
    log.warn('dependency unavailable', { requestId, error: describe(error) });
    return new HttpError('SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE, { 'Retry-After': UNAVAILABLE_RETRY_AFTER });
  }
  log.error('unhandled error', { requestId, error: describe(error) });
  return new HttpError('INTERNAL_ERROR', `Something went wrong on our side; quote request id ${requestId} if it persists`);
}

/** The one place an error becomes an answer: the contract's Error shape, with the headers that belong to the error. */
export function errorAnswer(error: unknown, requestId: string): Result {
  const refusal = toHttpError(error, requestId);
  return { status: refusal.status, body: refusal.toJSON(), headers: refusal.headers };
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}
