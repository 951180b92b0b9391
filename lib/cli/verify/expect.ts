/** What the contract promises of every answer, as `verify` checks it: each function returns the broken promises. */
import type { ErrorCode } from '../../http/error-codes.js';
import type { Answer } from './http.js';

export function shown(headers: Headers, name: string): string {
  const value = headers.get(name);
  return value === null ? `${name} is missing` : `${name} is "${value}"`;
}

export function wholeNumberHeader(answer: Answer, name: string, problems: string[]): number | undefined {
  const value = answer.headers.get(name);
  if (value === null || !/^\d+$/.test(value)) {
    problems.push(`${shown(answer.headers, name)}, not a whole number`);
    return undefined;
  }
  return Number(value);
}

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/** What every answer carries, whoever gave it (a function or API Gateway itself). */
function everyAnswer(answer: Answer): string[] {
  const problems: string[] = [];
  if (!answer.headers.get('X-Request-Id')) problems.push('X-Request-Id is missing');
  if (answer.headers.get('X-Content-Type-Options') !== 'nosniff')
    problems.push(`${shown(answer.headers, 'X-Content-Type-Options')}, not nosniff`);
  for (const name of RATE_LIMIT_HEADERS) wholeNumberHeader(answer, name, problems);
  if (!/^application\/json\b/i.test(answer.headers.get('Content-Type') ?? '')) {
    problems.push(`${shown(answer.headers, 'Content-Type')}, not application/json`);
  }
  return problems;
}

const ERROR_FIELDS = 'code,message,status';

export function said(answer: Answer): string {
  const body = answer.body;
  if (typeof body === 'object' && body !== null && 'code' in body && 'message' in body) {
    return ` (${String(body.code)}: ${String(body.message)})`;
  }
  return answer.text ? ` (body: ${answer.text.slice(0, 80)})` : '';
}

export function errorProblems(answer: Answer, status: number, code: ErrorCode): string[] {
  if (answer.status !== status) return [`status ${answer.status}${said(answer)}, expected ${status} ${code}`];
  const problems = everyAnswer(answer);
  const body = answer.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    problems.push(`the body is not the Error object: ${answer.text.slice(0, 80) || 'empty'}`);
    return problems;
  }
  const fields = Object.keys(body).sort().join(',');
  if (fields !== ERROR_FIELDS) problems.push(`the Error body has fields [${fields}], expected [${ERROR_FIELDS}]`);
  if (!('code' in body) || body.code !== code)
    problems.push(`code is ${JSON.stringify('code' in body ? body.code : undefined)}, expected ${code}`);
  if (!('status' in body) || body.status !== answer.status) {
    problems.push(
      `the body's status is ${JSON.stringify('status' in body ? body.status : undefined)}, not the HTTP status ${answer.status}`,
    );
  }
  if (!('message' in body) || typeof body.message !== 'string' || !body.message.trim()) problems.push('the message is empty');
  return problems;
}

export function successProblems(answer: Answer, status: number): string[] {
  if (answer.status !== status) return [`status ${answer.status}${said(answer)}, expected ${status}`];
  const problems = everyAnswer(answer);
  if (answer.body === undefined) problems.push(`the body is not JSON: ${answer.text.slice(0, 80) || 'empty'}`);
  return problems;
}

/** `Retry-After` in whole seconds, at least 1 and at most `max`. */
export function retryAfterProblems(answer: Answer, max: number): string[] {
  const problems: string[] = [];
  const seconds = wholeNumberHeader(answer, 'Retry-After', problems);
  if (seconds !== undefined && (seconds < 1 || seconds > max)) problems.push(`Retry-After is ${seconds}, expected 1 to ${max} seconds`);
  return problems;
}
