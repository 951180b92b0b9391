/** Which operation a method and a path below /v1 reach, as API Gateway's resource tree decides (none: our 404). */
import { ROUTES, type Route } from '../../lib/routes.js';

export type RouteMatch = { route: Route; pathParameters: Record<string, string> | null };

export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, pathParameters: Object.keys(params).length ? params : null };
  }
  return undefined;
}

function matchPath(template: string, path: string): Record<string, string> | undefined {
  const want = template.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, w] of want.entries()) {
    const g = got[i] ?? '';
    if (w.startsWith('{') && w.endsWith('}')) {
      if (g === '') return undefined;
      params[w.slice(1, -1)] = safeDecode(g);
    } else if (w !== g) return undefined;
  }
  return params;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
