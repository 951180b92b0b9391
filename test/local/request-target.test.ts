/**
 * How the local gateway reads a request target: an origin-form target (from `/`) as a path, `//` included, through the
 * WHATWG URL parser, or, when it is plain (`/v1/categories`), as it is; both ways read the same path and query.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../infra/local/gateway.js';

/** The parser's path and query of an origin-form target: the target after a scheme and host, so `//` is a path. */
const parsed = (raw: string) => {
  const url = new URL(`http://localhost${raw}`);
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
  it('is read the same way plain or parsed, for any origin-form target', () => {
    fc.assert(
      fc.property(fc.oneof(target, fc.string()), (rest) => {
        expect(requestTarget(`/${rest}`)).toEqual(parsed(`/${rest}`));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps what the parser keeps: empty segments, a trailing slash, and no query', () => {
    for (const raw of ['/', '/v1/categories', '/v1/categories/', '/v1//categories', '/v1/./categories', '/v1/%63ats?x=1'])
      expect(requestTarget(raw), raw).toEqual(parsed(raw));
  });

  it('is a path when it starts with //, never a host and a path', () => {
    for (const raw of ['//', '//v1', '//x/v1/categories', '//x:99999/v1/categories'])
      expect(requestTarget(raw), raw).toEqual({ pathname: raw, query: [] });
  });

  it('in absolute form, is its URL’s path, or no path when it is no URL', () => {
    expect(requestTarget('http://host/v1/categories?x=1')).toEqual({ pathname: '/v1/categories', query: [['x', '1']] });
    expect(requestTarget('http://[::1')).toEqual({ pathname: '', query: [] });
  });
});
