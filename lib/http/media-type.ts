/**
 * Which request bodies the API reads: exactly `application/json` (RFC 8259), in any letter case, with a `charset`
 * parameter only if it says UTF-8 (the one encoding JSON exchanged between systems may use). Structured-syntax
 * suffixes such as `application/vnd.api+json` or `application/problem+json` name other formats with their own
 * rules, which the API does not implement, so they are refused like any other type. Other parameters are ignored.
 */

export const JSON_MEDIA_TYPE = 'application/json';

export type BodyMediaType = { ok: true } | { ok: false; reason: 'missing' | 'type' | 'charset'; detail: string };

/** The media type and parameters of a Content-Type value (RFC 9110, 8.3.1); type and parameter names lower-cased. */
export function parseContentType(value: string): { type: string; params: Record<string, string> } | undefined {
  const [head = '', ...rest] = value.split(';');
  const type = head.trim().toLowerCase();
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(type)) return undefined;
  const params: Record<string, string> = {};
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    const raw = part.slice(at + 1).trim();
    params[name] = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return { type, params };
}

export function checkBodyMediaType(contentType: string | undefined): BodyMediaType {
  if (!contentType?.trim()) return { ok: false, reason: 'missing', detail: '' };
  const parsed = parseContentType(contentType);
  if (parsed?.type !== JSON_MEDIA_TYPE) return { ok: false, reason: 'type', detail: contentType.slice(0, 100) };
  const charset = parsed.params.charset;
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') return { ok: false, reason: 'charset', detail: charset.slice(0, 40) };
  return { ok: true };
}
