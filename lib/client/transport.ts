/** One attempt over `fetch`, and the typed error of an answer of 400 or more; retries and rate-limit bookkeeping are the client's. */
import * as v from 'valibot';
import { type ErrorCode, isErrorCode } from '../http/error-codes.js';
import { REPLAYED_HEADER } from '../idempotency/names.js';
import { PetStoreBannedError, PetStoreError, PetStoreNetworkError } from './errors.js';
import type { Settings } from './options.js';
import { retryAfterMs } from './retry-policy.js';

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  /** Whether an admitted request counts against the plan (all but getRateLimitStatus). */
  counts: boolean;
  body?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Under fetch's "fetch failed": the innermost cause's message ("connect ECONNREFUSED …"), with its code. */
function networkCause(error: unknown): { text: string; code?: string } {
  let inner: unknown = error;
  let code: string | undefined;
  for (let depth = 0; depth < 5 && inner instanceof Error; depth++) {
    if ('code' in inner && typeof inner.code === 'string') code = inner.code;
    if (!(inner.cause instanceof Error)) break;
    inner = inner.cause;
  }
  const message = inner instanceof Error ? inner.message : String(inner);
  return { text: code && !message.includes(code) ? `${code}: ${message}` : message, code };
}

export async function attempt(settings: Settings, request: Request, signal?: AbortSignal): Promise<Answer> {
  const url = `${settings.baseUrl}${request.path}`;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), settings.attemptTimeoutMs);
  const onAbort = () => timeout.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await settings.fetch(url, {
      method: request.method,
      headers: { Accept: 'application/json', Authorization: `Bearer ${settings.apiKey}`, ...request.headers },
      body: request.body,
      signal: timeout.signal,
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.signal.aborted) {
      throw new PetStoreNetworkError(`No answer within ${settings.attemptTimeoutMs} ms from ${request.method} ${url}`, {
        cause: error,
        timedOut: true,
      });
    }
    const cause = networkCause(error);
    throw new PetStoreNetworkError(`No answer from ${request.method} ${url}: ${cause.text}`, { cause: error, code: cause.code });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

const ErrorBodySchema = v.object({ code: v.string(), message: v.string(), status: v.number() });

/** For a body that is not the contract's Error (an intermediary's page); any other status is INTERNAL_ERROR. */
const CODE_FOR_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'THROTTLED',
  503: 'SERVICE_UNAVAILABLE',
};

/** The typed error of an answer of 400 or more; a ban is a PetStoreBannedError ending `now` + Retry-After. */
export function errorOf(answer: Answer, now: number): PetStoreError {
  const { status, headers } = answer;
  const parsed = v.safeParse(ErrorBodySchema, answer.body);
  const code = parsed.success && isErrorCode(parsed.output.code) ? parsed.output.code : (CODE_FOR_STATUS[status] ?? 'INTERNAL_ERROR');
  const message = parsed.success ? parsed.output.message : `The API answered ${status}`;
  const details = {
    requestId: headers.get('x-request-id') ?? undefined,
    retryAfterMs: retryAfterMs(headers.get('retry-after'), now),
    replayed: headers.get(REPLAYED_HEADER) === 'true',
  };
  if (code === 'API_KEY_TEMPORARILY_BANNED') return new PetStoreBannedError(new Date(now + (details.retryAfterMs ?? 0)), message, details);
  return new PetStoreError(code, status, message, details);
}
