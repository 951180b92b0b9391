/**
 * Headers that follow from the route table: X-API-Stability for non-stable operations, and for deprecated ones
 * Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the documentation with rel="deprecation".
 */
import { env } from '../config.js';
import { checkDeprecationDates, type DeprecationDates } from '../deprecation.js';
import type { Route } from '../routes.js';

export function deprecationDates(source: Pick<typeof env, 'PETS_DEPRECATED_AT' | 'PETS_SUNSET_AT'> = env): DeprecationDates {
  return checkDeprecationDates(source.PETS_DEPRECATED_AT, source.PETS_SUNSET_AT);
}

export function routeHeaders(route: Route): () => Record<string, string> {
  const headers: Record<string, string> = {};
  if (route.stability !== 'stable') headers['X-API-Stability'] = route.stability;
  if (route.deprecated) {
    const { deprecatedAt, sunsetAt } = deprecationDates();
    headers.Deprecation = `@${Math.floor(deprecatedAt.getTime() / 1000)}`;
    headers.Sunset = sunsetAt.toUTCString();
    headers.Link = `<${env.DOCS_URL}>; rel="deprecation"; type="text/html"`;
  }
  return () => headers;
}
