/**
 * What every answer of the API must look like, whatever was sent (docs/api.md, "Errors" and "Rate limits"): a status
 * of the contract, JSON, X-Request-Id, the X-RateLimit headers, and for errors the Error body with a code of the
 * closed set whose status matches. Used by the fuzzing, fault and concurrency suites.
 */
import { ERROR_STATUS, isErrorCode } from '../../lib/http/error-codes.js';
import { type Answer, answerOfResponse } from './answer.js';

export type { Answer } from './answer.js';

/** Statuses a client may see when nothing is broken; 503 only while a dependency is down. */
export const CONTRACT_STATUSES = new Set([200, 201, 400, 401, 404, 405, 409, 410, 413, 415, 422, 429, 501]);

/** Every way an answer breaks the contract; empty when it keeps it. */
export function contractViolations(answer: Answer, allowed: ReadonlySet<number> = CONTRACT_STATUSES): string[] {
  const problems: string[] = [];
  const { status, headers, body } = answer;
  if (!allowed.has(status)) problems.push(`status ${status} is not allowed here`);
  if (!/^application\/json\b/i.test(headers.get('content-type') ?? '')) problems.push(`Content-Type is "${headers.get('content-type')}"`);
  if (!headers.get('x-request-id')) problems.push('no X-Request-Id');
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (!/^\d+$/.test(headers.get(name) ?? '')) problems.push(`${name} is "${headers.get(name)}"`);
  }
  if (body === undefined) problems.push(`the body is not JSON: ${answer.text.slice(0, 80)}`);
  if (status >= 300) {
    const error = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : undefined;
    const keys = error ? Object.keys(error).sort() : [];
    if (!error || !('code' in error && 'message' in error && 'status' in error) || keys.join() !== 'code,message,status') {
      problems.push(`the Error body has keys [${keys.join()}]`);
    } else {
      const code = String(error.code);
      if (error.status !== status) problems.push(`body status ${String(error.status)} differs from HTTP ${status}`);
      if (!isErrorCode(code)) problems.push(`unknown code ${code}`);
      else if (ERROR_STATUS[code] !== status) problems.push(`code ${code} does not go with ${status}`);
      if (typeof error.message !== 'string' || !error.message) problems.push('empty message');
    }
    if ((status === 429 || status === 503) && !/^\d+$/.test(headers.get('retry-after') ?? '')) problems.push('no Retry-After');
  }
  return problems;
}

/** Sends one request and reads the answer as the helpers above expect it. */
export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  return answerOfResponse(await fetch(url, init));
}
