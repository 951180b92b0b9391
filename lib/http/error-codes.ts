/**
 * The one error type at the HTTP boundary and the closed set of codes (docs/api.md, "Errors"). Anything that is not an
 * HttpError becomes INTERNAL_ERROR (or SERVICE_UNAVAILABLE for DynamoDB outages) in to-http-error.ts.
 */
export const ERROR_STATUS = {
  MALFORMED_JSON: 400,
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CATEGORY_EXISTS: 409,
  CATEGORY_LIMIT_REACHED: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  API_KEY_TEMPORARILY_BANNED: 429,
  THROTTLED: 429,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(name: string): name is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, name);
}

/** The closed set, in the order above. */
export const ERROR_CODES: readonly ErrorCode[] = Object.keys(ERROR_STATUS).filter(isErrorCode);

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers that belong to this error, such as Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    // An answer, not a fault: no stack is captured (nothing reads it; measured in docs/performance.md). Through
    // Reflect because V8's stackTraceLimit is not in the client's DOM-only types, which also compile this module.
    const limit: unknown = Reflect.get(Error, 'stackTraceLimit');
    Reflect.set(Error, 'stackTraceLimit', 0);
    super(message);
    Reflect.set(Error, 'stackTraceLimit', limit);
    this.name = 'HttpError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }

  toJSON(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}
