/**
 * What every answer of the API must look like, whatever was sent (docs/api.md, "Errors" and "Rate limits"): a status
 * of the contract, JSON, X-Request-Id, the X-RateLimit headers, and for errors the Error body with a code of the
 * closed set whose status matches. Used by the fuzzing, fault and concurrency suites.
 */
import { ERROR_STATUS, type ErrorCode } from '../../lib/http/errors.js';

/** Statuses a client may see when nothing is broken; 503 only while a dependency is down. */
export const CONTRACT_STATUSES = new Set([200, 201, 400, 401, 404, 405, 409, 410, 413, 415, 422, 429, 501]);

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

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
    const error = body as Record<string, unknown> | undefined;
    const keys = error && typeof error === 'object' ? Object.keys(error).sort() : [];
    if (keys.join() !== 'code,message,status') problems.push(`the Error body has keys [${keys.join()}]`);
    else {
      if (error?.status !== status) problems.push(`body status ${String(error?.status)} differs from HTTP ${status}`);
      if (!(String(error?.code) in ERROR_STATUS)) problems.push(`unknown code ${String(error?.code)}`);
      else if (ERROR_STATUS[error?.code as ErrorCode] !== status) problems.push(`code ${String(error?.code)} does not go with ${status}`);
      if (typeof error?.message !== 'string' || !error.message) problems.push('empty message');
    }
    if ((status === 429 || status === 503) && !/^\d+$/.test(headers.get('retry-after') ?? '')) problems.push('no Retry-After');
  }
  return problems;
}

/** Sends one request and reads the answer as the helpers above expect it. */
export async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}
