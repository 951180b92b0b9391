/**
 * Every Authorization value of a request, whatever the letter case of the names. API Gateway keeps only the last
 * value of a repeated header in `headers` and all of them in `multiValueHeaders`; a proxy in front may pick the
 * first, so a request that carries more than one is refused (by the authorizer, and again by the operation in case
 * API Gateway reuses a decision it cached for one of the values).
 */
export const REPEATED_AUTHORIZATION_MESSAGE =
  'More than one Authorization header was sent: send exactly one, Authorization: Bearer <API key>';

type HeaderMap = Record<string, string | undefined> | null | undefined;
type MultiHeaderMap = Record<string, string[] | undefined> | null | undefined;

export function authorizationValues(headers: HeaderMap, multiValueHeaders: MultiHeaderMap): string[] {
  const named = (name: string) => name.toLowerCase() === 'authorization';
  const multi = Object.entries(multiValueHeaders ?? {}).flatMap(([name, values]) => (named(name) ? (values ?? []) : []));
  if (multi.length) return multi;
  return Object.entries(headers ?? {}).flatMap(([name, value]) => (named(name) && value !== undefined ? [value] : []));
}
