/**
 * Headers that follow from the route table: X-API-Stability for non-stable operations, and for deprecated ones
 * Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the documentation with rel="deprecation".
 */
import { env } from '../config.js';
import type { Route } from '../routes.js';

export interface DeprecationDates {
  deprecatedAt: Date;
  sunsetAt: Date;
}

export function deprecationDates(source = env): DeprecationDates {
  const deprecatedAt = new Date(source.PETS_DEPRECATED_AT);
  const sunsetAt = new Date(source.PETS_SUNSET_AT);
  if (sunsetAt.getTime() < deprecatedAt.getTime()) {
    throw new Error(
      `Invalid configuration: the sunset date ${source.PETS_SUNSET_AT} is earlier than the deprecation date ${source.PETS_DEPRECATED_AT}`,
    );
  }
  return { deprecatedAt, sunsetAt };
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
