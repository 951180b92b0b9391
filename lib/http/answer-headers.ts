/**
 * The headers every answer carries, the functions' and API Gateway's own alike (gateway-responses.ts), and the
 * challenge of every 401. No customer is known when the gateway answers, so its X-RateLimit headers say 0/0/0:
 * "no quota is being spent and there is no window to wait for" (docs/api.md, "Rate-limit headers").
 */
export const GATEWAY_RATE_LIMIT_HEADERS: Readonly<Record<string, string>> = {
  'X-RateLimit-Limit': '0',
  'X-RateLimit-Remaining': '0',
  'X-RateLimit-Reset': '0',
};

/**
 * No cache on the way may store an answer, and no client may guess a type other than the Content-Type (OWASP REST
 * Security Cheat Sheet, "Security headers").
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * The challenge of every 401 (RFC 9110, 11.6.1), in RFC 6750's form: without `error` when no credentials were sent,
 * with `error="invalid_token"` when a key was sent and refused. Gateway responses hold static header values only, so
 * the deployed answer to a refused key says invalid_token whatever the reason (a wrong scheme, a repeated header).
 */
export const AUTH_REALM = 'Pet Store API';
export const BEARER_CHALLENGE = `Bearer realm="${AUTH_REALM}"`;
export const INVALID_TOKEN_CHALLENGE = `${BEARER_CHALLENGE}, error="invalid_token"`;
