/**
 * Every Authorization value of a request, whatever the case of the name, and the key one holds. API Gateway keeps all
 * values in `multiValueHeaders`, the last in `headers`, and a proxy may pick the first: more than one is refused (by
 * the authorizer, and again by the operation, as API Gateway may reuse a decision it cached for one of them).
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

export type BearerProblem = 'missing' | 'scheme' | 'separator' | 'extra-text';

/** White space around a field value is not part of it (RFC 9110, 5.5: OWS is SP and HTAB, nothing else). */
const AROUND = /^[ \t]+|[ \t]+$/g;

/**
 * The key of an Authorization value, as RFC 6750, 2.1: `"Bearer" 1*SP b64token`: any other white space before the key
 * is refused, as is anything after it. The caller checks the key ('' when Bearer came alone).
 */
export function bearerKey(value: string | undefined): { key: string } | { problem: BearerProblem } {
  const field = (value ?? '').replace(AROUND, '');
  if (!field) return { problem: 'missing' };
  // The scheme is case-insensitive (RFC 9110, 11.1).
  if (field.slice(0, 6).toLowerCase() !== 'bearer') return { problem: 'scheme' };
  const after = field.slice(6);
  if (after === '') return { key: '' };
  if (!after.startsWith(' ')) return /^\s/u.test(after) ? { problem: 'separator' } : { problem: 'scheme' };
  const key = after.replace(/^ +/, '');
  return /[\s,]/u.test(key) ? { problem: 'extra-text' } : { key };
}
