/**
 * The one answer type of the tests, whether a handler returned it (test/support/events.ts) or a server sent it over
 * HTTP (contract-answer.ts), and the two ways a test reads its body: as the success its route declares
 * (`successBody`) or as an Error (`errorBody`). Both check the body against a schema, so no test casts a body.
 */
import { isDeepStrictEqual } from 'node:util';
import type { APIGatewayProxyResult } from 'aws-lambda';
import * as v from 'valibot';
import { ERROR_CODES, type ErrorBody } from '../../lib/http/error-codes.js';
import type { Quota, Route } from '../../lib/routes.js';

export interface Answer {
  status: number;
  /** Read as a client reads them: `headers.get(name)`, whatever the case of the name. */
  headers: Headers;
  /**
   * The header names as sent, in order: a handler's as it wrote them; over HTTP as fetch hands them over (lower
   * case). For the tests of the header block itself.
   */
  headerNames: readonly string[];
  /** The body parsed as JSON; undefined when there is none, or (over HTTP) when it is not JSON. */
  body: unknown;
  text: string;
}

/** The header block as sent, names in their case and order: for tests of the block itself. */
export function sentHeaders(answer: Answer): Record<string, string> {
  return Object.fromEntries(answer.headerNames.map((name) => [name, answer.headers.get(name) ?? '']));
}

/** What a handler returned. Every operation answers JSON, so a body that is not JSON fails the test here. */
export function answerOfResult(result: APIGatewayProxyResult): Answer {
  const sent = Object.entries(result.headers ?? {}).map(([name, value]): [string, string] => [name, String(value)]);
  const headers = new Headers(sent);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    for (const value of values) headers.append(name, String(value));
    sent.push([name, headers.get(name) ?? '']);
  }
  return {
    status: result.statusCode,
    headers,
    headerNames: sent.map(([name]) => name),
    body: result.body ? JSON.parse(result.body) : undefined,
    text: result.body,
  };
}

/** What a server sent. Gateways and proxies may answer with something other than JSON: then `body` is undefined. */
export async function answerOfResponse(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, headerNames: [...response.headers.keys()], body, text };
}

/** The Error shape every error answer has (lib/http/error-codes.ts); `satisfies` keeps it in step with ErrorBody. */
const ErrorBodySchema = v.object({
  code: v.picklist(ERROR_CODES),
  message: v.string(),
  status: v.number(),
}) satisfies v.GenericSchema<unknown, ErrorBody>;

/**
 * The value a schema reads from a body, which must be the body itself: a schema drops fields it does not know
 * and may transform others, and a test must see exactly what was answered.
 */
function read<T>(schema: v.GenericSchema<unknown, T>, answer: Answer, what: string): T {
  const parsed = v.safeParse(schema, answer.body);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`).join('; ');
    throw new Error(`${what}, but ${problems} (answer ${answer.status}: ${answer.text.slice(0, 300)})`);
  }
  if (!isDeepStrictEqual(parsed.output, answer.body)) {
    throw new Error(`${what}, but the body holds more than the schema says (answer ${answer.status}: ${answer.text.slice(0, 300)})`);
  }
  return parsed.output;
}

/** What `successBody` needs of a route (lib/routes.ts): its name, and the status and schema of its success. */
type SuccessOf<T> = Pick<Route<Quota, unknown, boolean, T>, 'operationId' | 'success'>;

/**
 * The body of a route's success answer, read with the route's own schema (lib/routes.ts): fails unless the answer
 * has the route's success status and its body is exactly what the schema describes.
 */
export function successBody<T>(route: SuccessOf<T>, answer: Answer): T {
  const { success } = route;
  if (!success) throw new Error(`${route.operationId} has no success answer`);
  const what = `expected ${route.operationId}'s ${success.status} answer`;
  if (answer.status !== success.status) throw new Error(`${what}, got ${answer.status}: ${answer.text.slice(0, 300)}`);
  return read(success.schema, answer, what);
}

/** The body of an error answer, in the Error shape: a code of the closed set, a message, and the answer's status. */
export function errorBody(answer: Answer): ErrorBody {
  const what = 'expected an Error answer';
  if (answer.status < 400) throw new Error(`${what}, got ${answer.status}: ${answer.text.slice(0, 300)}`);
  const error = read(ErrorBodySchema, answer, what);
  if (error.status !== answer.status) throw new Error(`${what}, but its body says status ${error.status} on a ${answer.status} answer`);
  return error;
}
