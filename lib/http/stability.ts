/**
 * What a route's stability means for a request: X-API-Stability on a non-stable operation's answers; on a deprecated
 * one's, Deprecation (RFC 9745), Sunset (RFC 8594) and a Link with rel="deprecation", from the route's own dates in
 * force; and the deprecated call's step after admission (`deprecatedCall`): logged, and past the sunset 410 GONE.
 */
import type { AuthContext } from '../auth/context.js';
import { nowMs } from '../clock.js';
import { config, type Env } from '../config.js';
import { type Deprecation, type DeprecationDates, deprecationDates } from '../deprecation.js';
import { log } from '../log.js';
import type { Route } from '../routes.js';
import { HttpError } from './error-codes.js';

const inForce = new WeakMap<Env, Map<Deprecation, DeprecationDates>>();

/** A deprecation's dates under the configuration in force, worked out once per configuration. */
export function datesInForce(deprecation: Deprecation): DeprecationDates {
  const env = config();
  const known = inForce.get(env) ?? new Map<Deprecation, DeprecationDates>();
  inForce.set(env, known);
  const dates = known.get(deprecation) ?? deprecationDates(deprecation, env);
  known.set(deprecation, dates);
  return dates;
}

export function routeHeaders(route: Route): Record<string, string> {
  const headers: Record<string, string> = {};
  if (route.stability !== 'stable') headers['X-API-Stability'] = route.stability;
  if (route.deprecation) {
    const { deprecatedAt, sunsetAt, docsUrl } = datesInForce(route.deprecation);
    headers.Deprecation = `@${Math.floor(deprecatedAt.getTime() / 1000)}`;
    headers.Sunset = sunsetAt.toUTCString();
    headers.Link = `<${docsUrl}>; rel="deprecation"; type="text/html"`;
  }
  return headers;
}

/** The admitting write has counted the call; the log line shows an operator who still uses it before its sunset. */
export function deprecatedCall(
  operation: { operationId: string; method: string; path: string },
  deprecation: Deprecation,
  { customerId, keyId }: AuthContext,
): void {
  const { sunsetAt } = datesInForce(deprecation);
  log.info('deprecated operation called', { operationId: operation.operationId, customerId, keyId });
  if (nowMs() >= sunsetAt.getTime()) {
    throw new HttpError('GONE', `${operation.method} ${operation.path} was retired on ${sunsetAt.toUTCString()}; see the Link header`);
  }
}
