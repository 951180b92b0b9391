/**
 * Headers every answer of an operation carries, success and error alike: X-Request-Id, Cache-Control: no-store
 * and X-Content-Type-Options: nosniff (ANSWER_HEADERS), X-API-Stability for
 * non-stable operations, Deprecation (RFC 9745), Sunset (RFC 8594) and a Link with rel="deprecation" for
 * deprecated ones, and the no-customer rate-limit headers on an answer given before the customer's windows were
 * known. First in the chain, so its after and onError run last, over whatever the others built.
 */
import { config, type Env } from '../config.js';
import { type Deprecation, type DeprecationDates, deprecationDates } from '../deprecation.js';
import type { Route } from '../routes.js';
import { addHeaders, type OperationMiddleware, type OperationRequest } from './context.js';
import { ANSWER_HEADERS, GATEWAY_RATE_LIMIT_HEADERS } from './gateway-responses.js';

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

/** The headers a route's definition implies, with the environment's deprecation dates. */
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

export function responseHeaders(route: Route): OperationMiddleware {
  const decorate = (request: OperationRequest) => {
    if (!request.response) return;
    // Replaced by the rate limiter's headers once the customer is known (see GATEWAY_RATE_LIMIT_HEADERS).
    request.response.headers = { ...GATEWAY_RATE_LIMIT_HEADERS, ...request.response.headers };
    addHeaders(request, {
      ...ANSWER_HEADERS,
      ...routeHeaders(route),
      'X-Request-Id': request.event.requestContext?.requestId ?? request.context.awsRequestId,
    });
  };
  return {
    after: function responseHeadersAfter(request) {
      decorate(request);
    },
    onError: function responseHeadersOnError(request) {
      decorate(request);
    },
  };
}
