/** What the client throws: `PetStoreError` for an answer of the API (with the contract's `code`), and no answer or a bad one. */
import type { ErrorCode } from '../http/error-codes.js';

export interface ErrorDetails {
  /** X-Request-Id of the answer: quote it when reporting a problem. */
  requestId?: string;
  /** What Retry-After asked for, in milliseconds. */
  retryAfterMs?: number;
  /** The answer was a replay of an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
  /** Attempts made before giving up (1 when the error was not retried). */
  attempts?: number;
  cause?: unknown;
}

export class PetStoreError extends Error {
  readonly code: ErrorCode;
  /** The HTTP status (for an answer the client refused to send: the one the API would have given). */
  readonly status: number;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly replayed: boolean;
  attempts: number;

  constructor(code: ErrorCode, status: number, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PetStoreError';
    this.code = code;
    this.status = status;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
    this.replayed = details.replayed ?? false;
    this.attempts = details.attempts ?? 1;
  }
}

/** 429 API_KEY_TEMPORARILY_BANNED: never retried; every request before `until` would be refused too. */
export class PetStoreBannedError extends PetStoreError {
  readonly until: Date;

  constructor(until: Date, message: string, details: ErrorDetails = {}) {
    super('API_KEY_TEMPORARILY_BANNED', 429, `Banned until ${until.toISOString()}: ${message}`, details);
    this.name = 'PetStoreBannedError';
    this.until = until;
  }
}

/** Not sent: a window is used up until `resetAt`, and waiting would exceed the caller's cap (or waiting is off). */
export class PetStoreQuotaError extends PetStoreError {
  readonly resetAt: Date;
  readonly sent = false;

  constructor(resetAt: Date, message: string) {
    super('RATE_LIMIT_EXCEEDED', 429, message);
    this.name = 'PetStoreQuotaError';
    this.resetAt = resetAt;
  }
}

/** No answer (connection failed or cut, attempt timed out); the message names the URL and the cause. */
export class PetStoreNetworkError extends Error {
  readonly timedOut: boolean;
  /** The system's code for the failure where there is one (ECONNREFUSED, ENOTFOUND, ECONNRESET…). */
  readonly code?: string;
  attempts = 1;

  constructor(message: string, options: { cause?: unknown; timedOut?: boolean; code?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = 'PetStoreNetworkError';
    this.timedOut = options.timedOut ?? false;
    this.code = options.code;
  }
}

/** An answer that is not what the contract allows (a body of the wrong shape). */
export class PetStoreResponseError extends Error {
  readonly status: number;
  readonly requestId?: string;

  constructor(message: string, status: number, requestId?: string) {
    super(message);
    this.name = 'PetStoreResponseError';
    this.status = status;
    this.requestId = requestId;
  }
}
