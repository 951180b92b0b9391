/**
 * The local gateway reads a plain request target (`/v1/categories`) without the URL parser: for any target, what it
 * reads is what the WHATWG URL parser gives, path and query alike, and a target the parser refuses is no path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../infra/local/gateway.js';

/** The parser's path and query; a target it refuses has no path at all. */
const parsed = (raw: string) => {
  if (!URL.canParse(raw, 'http://localhost')) return { pathname: '', query: [] };
  const url = new URL(raw, 'http://localhost');
  return { pathname: url.pathname, query: [...url.searchParams] };
};

/** Targets made of the characters the parser treats specially, and of those it passes through. */
const target = fc
  .array(
    fc.constantFrom('/', '/', 'v1', 'categories', 'a', 'Z', '0', '_', '-', '.', '..', '%', '%41', '?', '#', '=', '&', '\\', ' ', 'é', ':'),
    {
      maxLength: 12,
    },
  )
  .map((parts) => parts.join(''));

describe('the request target', () => {
  it('is read as the URL parser reads it, for any target', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          target.map((t) => `/${t}`),
          target,
          fc.string(),
        ),
        (raw) => {
          expect(requestTarget(raw)).toEqual(parsed(raw));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('keeps what the parser keeps: empty segments, a trailing slash, and no query', () => {
    for (const raw of ['/', '/v1/categories', '/v1/categories/', '/v1//categories', '//v1', '/v1/./categories', '/v1/%63ats?x=1'])
      expect(requestTarget(raw), raw).toEqual(parsed(raw));
  });

  it('is no path when the parser refuses it', () => {
    for (const raw of ['//', '//x:99999/v1/categories', 'http://[::1'])
      expect(requestTarget(raw), raw).toEqual({ pathname: '', query: [] });
  });
});
