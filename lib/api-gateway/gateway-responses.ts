/**
 * Responses that API Gateway itself gives, before or instead of a function: unknown path, refused key, body over
 * the limit, stage throttling, anything else; and the one answer WAF gives itself (WEB_ACL_RESPONSES). The CDK
 * stack turns these tables into gateway responses and the web ACL's custom response, and the local gateway answers
 * from them, so all speak the contract's Error shape with the same words.
 */
import { UNAVAILABLE_RETRY_AFTER } from '../dynamo/backoff.js';
import { BEARER_CHALLENGE, INVALID_TOKEN_CHALLENGE } from '../http/answer-headers.js';
import type { ErrorCode } from '../http/error-codes.js';
import { ADDRESS_RATE_WINDOW_SECONDS } from '../usage-plans.js';

export interface GatewayResponseSpec {
  status: number;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

/** The authorizer, or an operation's function, failed rather than answered: 503 with Retry-After. */
const UNAVAILABLE = {
  status: 503,
  code: 'SERVICE_UNAVAILABLE',
  message: 'The service is temporarily unavailable; retry after the time in Retry-After',
  headers: { 'Retry-After': UNAVAILABLE_RETRY_AFTER },
} as const satisfies GatewayResponseSpec;

const INTERNAL_ERROR = {
  status: 500,
  code: 'INTERNAL_ERROR',
  message: 'Something went wrong on our side; quote the X-Request-Id header if it persists',
} as const satisfies GatewayResponseSpec;

const BODY_TOO_LARGE = {
  status: 413,
  code: 'PAYLOAD_TOO_LARGE',
  message: 'The request body is too large; the limit is 16384 bytes (16 KiB)',
} as const satisfies GatewayResponseSpec;

const NOT_FOUND = {
  status: 404,
  code: 'NOT_FOUND',
  message: 'There is no such operation: check the method and the path (see the API reference)',
} as const satisfies GatewayResponseSpec;

/**
 * Keyed by API Gateway's ResponseType names. No customer is known when the gateway answers, so the X-RateLimit
 * headers say 0/0/0: no quota is being spent and there is no window to wait for (docs/api.md, "Rate-limit headers").
 */
export const GATEWAY_RESPONSES = {
  MISSING_AUTHENTICATION_TOKEN: NOT_FOUND,
  RESOURCE_NOT_FOUND: NOT_FOUND,
  /** The identity source (the Authorization header) is missing or empty, so the authorizer is not invoked. */
  UNAUTHORIZED: {
    status: 401,
    code: 'UNAUTHORIZED',
    message: 'The Authorization header is missing or its API key is not valid: send Authorization: Bearer <API key>',
    headers: { 'WWW-Authenticate': BEARER_CHALLENGE },
  },
  /** The authorizer returned a Deny policy; deployed, the message comes from its context ($context.authorizer.message). */
  ACCESS_DENIED: {
    status: 401,
    code: 'UNAUTHORIZED',
    message: 'The API key was refused',
    headers: { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE },
  },
  /**
   * The authorizer threw (DynamoDB unreachable), timed out, or returned no valid policy: retryable. API Gateway answers
   * all of these so, a 500 by default; infra/local/authorizer.ts cites what AWS documents and models it.
   */
  AUTHORIZER_CONFIGURATION_ERROR: UNAVAILABLE,
  /** AWS documents this type for an authorizer that "failed to authenticate the caller"; mapped the same in case. */
  AUTHORIZER_FAILURE: UNAVAILABLE,
  /** The web ACL's body-size rule (over 16 KiB), its only rule without a custom response (infra/constructs/web-acl.ts). */
  WAF_FILTERED: BODY_TOO_LARGE,
  /** API Gateway's own 10 MB limit (WAF refuses first); reportedly not customisable, so its own 413 body may come instead. */
  REQUEST_TOO_LARGE: BODY_TOO_LARGE,
  /**
   * API Gateway refuses a request whose authorizer names no usage plan key, or one in no usage plan of the stage: a
   * customer not yet given its gateway key (docs/deploying.md, "Isolation"). Its key is valid: it is sent to the provider.
   */
  INVALID_API_KEY: {
    status: 401,
    code: 'UNAUTHORIZED',
    message: 'The API key is valid, but its account is not enabled at the gateway yet; contact the API provider',
    headers: { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE },
  },
  /**
   * The customer's usage plan throttle and the stage's: one response type serves both ("usage plan-, method-, stage-,
   * or account-level throttling limits exceeded"), with static headers, so it cannot say which one refused.
   */
  THROTTLED: {
    status: 429,
    code: 'THROTTLED',
    message:
      "Too many requests at the gateway: your account's request rate there, or the service's overall rate, is exceeded; retry after the time in Retry-After",
    headers: { 'Retry-After': '1' },
  },
  /** API Gateway could not invoke a function or use its answer (504 by default): retryable, as a function's timeout is. */
  INTEGRATION_FAILURE: UNAVAILABLE,
  /** API Gateway's 29 s integration limit, far above every function's timeout (15 s at most): a safety net. */
  INTEGRATION_TIMEOUT: UNAVAILABLE,
  /** A fault of the API's own configuration (an integration that cannot be reached, say): a bug on our side. */
  API_CONFIGURATION_ERROR: INTERNAL_ERROR,
  /**
   * The fallbacks, deployed without a status of their own: "Changing the status code of this fallback gateway response
   * changes the status codes of all other 4XX responses to the new value" (API Gateway Developer Guide, "Gateway
   * response types"), and so for 5XX. The local gateway answers a malformed request and its own failures with these.
   */
  DEFAULT_4XX: {
    status: 400,
    code: 'VALIDATION_FAILED',
    message: 'The request could not be accepted; check the method, headers and body',
  },
  DEFAULT_5XX: INTERNAL_ERROR,
} as const satisfies Record<string, GatewayResponseSpec>;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSES;

/** The customised response types that answer with `status`, the fallbacks left out (they keep API Gateway's status). */
export function gatewayResponseTypesOf(status: number): string[] {
  return Object.entries(GATEWAY_RESPONSES)
    .filter(([type, spec]) => spec.status === status && !FALLBACK_RESPONSE_TYPES.has(type))
    .map(([type]) => type);
}

/** The response types whose status the fallbacks would take, were they given one: they keep API Gateway's own. */
export const FALLBACK_RESPONSE_TYPES: ReadonlySet<string> = new Set(['DEFAULT_4XX', 'DEFAULT_5XX']);

/**
 * The gateway response types API Gateway documents that are not customised, each with why it cannot occur in this
 * API (a test holds the templates to each reason). Should one become possible, it would get the DEFAULT_4XX body
 * with API Gateway's own status, which the body's `status` would contradict: customise it then.
 * @internal read by the template tests
 */
export const UNCUSTOMISED_RESPONSE_TYPES = {
  BAD_REQUEST_PARAMETERS: 'no method has a request validator: the functions validate',
  BAD_REQUEST_BODY: 'no method has a request validator: the functions validate',
  EXPIRED_TOKEN: 'no method uses IAM (SigV4) authorization: every method uses the Lambda authorizer',
  INVALID_SIGNATURE: 'no method uses IAM (SigV4) authorization: every method uses the Lambda authorizer',
  QUOTA_EXCEEDED: 'no usage plan has a quota: the day counts are ours, exact',
  UNSUPPORTED_MEDIA_TYPE: 'every integration is a Lambda proxy integration, which passes every media type through',
} as const satisfies Record<string, string>;

/** The window of the web ACL's rate rule: it counts each address's requests over the trailing 5 minutes. */
export const WAF_RATE_WINDOW_SECONDS = 300;

/** Answers WAF gives itself, as custom responses: static headers only, so without X-Request-Id. */
export const WEB_ACL_RESPONSES = {
  /**
   * The rate rule for requests without a well-formed key. WAF refuses an address until its count over the trailing
   * window falls below the limit, so Retry-After is the window: the longest the block lasts once it stops sending.
   */
  KEYLESS_RATE: {
    status: 429,
    code: 'THROTTLED',
    message:
      'Too many requests without a valid API key from this address; send Authorization: Bearer <API key>, or retry after the time in Retry-After',
    headers: { 'Retry-After': String(WAF_RATE_WINDOW_SECONDS) },
    /** Its body's key among the web ACL's custom response bodies. */
    bodyKey: 'keyless-rate',
  },
  /** The rate rule per source address, whatever its key: any fixed plan's honest client stays under it. */
  ADDRESS_RATE: {
    status: 429,
    code: 'THROTTLED',
    message:
      'Too many requests from this address, whatever their API key; spread your clients over more addresses or ask the API provider to allow-list yours, or retry after the time in Retry-After',
    headers: { 'Retry-After': String(ADDRESS_RATE_WINDOW_SECONDS) },
    bodyKey: 'address-rate',
  },
} as const satisfies Record<string, GatewayResponseSpec & { bodyKey: string }>;
