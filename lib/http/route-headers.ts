/**
 * What a route's definition implies for its answers: X-API-Stability for non-stable operations, and for deprecated
 * ones Deprecation (RFC 9745), Sunset (RFC 8594) and a Link with rel="deprecation", from the route's own dates in
 * force (its definition's, moved only by the variables it names). finish.ts puts them on every answer; the
 * deprecation step reads the sunset from here too.
 */
import { config, type Env } from '../config.js';
import { type Deprecation, type DeprecationDates, deprecationDates } from '../deprecation.js';
import type { Route } from '../routes.js';

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
