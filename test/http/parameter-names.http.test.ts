/**
 * Query and header names of any spelling are ordinary names (the contract's "No 5xx from any request"): names that
 * are Object.prototype's own properties (`constructor`, `__proto__`, `toString`, …), repeated or not, sent over HTTP
 * to the local gateway's request handler. No answer is a 5xx, and the event handed to the function holds every name
 * as API Gateway puts it there: the last value in `queryStringParameters`/`headers`, all of them in the multi-value
 * maps, header names compared ignoring case. The real handler runs behind it (header normalisation included).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleRequest } from '../../infra/local/gateway.js';
import { inProcess, type LocalFunctions } from '../../infra/local/instances.js';
import type { ApiEvent } from '../../lib/http/response.js';
import { makeCustomer, type TestCustomer } from '../support/customers.js';
import { listen } from '../support/listen.js';
import { answerOfRaw, rawExchange } from '../support/raw-http.js';

/** 100 requests: each meets several of the prototype's names, and the run stays within seconds on 2 shared cores. */
const RUNS = 100;

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
/** Headers the request's framing and key depend on: the test sends them itself. */
const FRAMING = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'authorization', 'expect', 'upgrade']);
const TCHAR = [..."!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"];

const prototypeName = fc.constantFrom(...PROTOTYPE_NAMES);
const queryName = fc.oneof(prototypeName, fc.string({ minLength: 1, maxLength: 12 }));
const headerName = fc
  .oneof(
    prototypeName,
    prototypeName.map((name) => name.toUpperCase()),
    fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 12 }),
  )
  .filter((name) => !FRAMING.has(name.toLowerCase()));
const value = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_'), maxLength: 8 });

/** What API Gateway puts in the event for these pairs: by name (ignoring case for headers, spelled as first sent). */
function expectedMaps(pairs: [string, string][], ignoreCase: boolean) {
  const groups = new Map<string, { name: string; values: string[] }>();
  for (const [name, v] of pairs) {
    const key = ignoreCase ? name.toLowerCase() : name;
    const group = groups.get(key) ?? { name, values: [] };
    group.values.push(v);
    groups.set(key, group);
  }
  const named = [...groups.values()];
  return {
    single: new Map(named.map(({ name, values }) => [name, values.at(-1)])),
    multi: new Map(named.map(({ name, values }) => [name, values])),
  };
}

/** A map of the event as own properties only: what JSON.stringify (and a Lambda's JSON.parse) would carry. */
const own = (map: Record<string, unknown> | null | undefined) => new Map(Object.entries(map ?? {}));

let server: Server;
let url = '';
let customer: TestCustomer;
type Handed = Pick<ApiEvent, 'headers' | 'multiValueHeaders' | 'queryStringParameters' | 'multiValueQueryStringParameters'>;
const handed: Handed[] = [];
/** The functions the gateway runs, recording each event's maps before running it (the function replaces them). */
const recording: LocalFunctions = {
  ...inProcess,
  invoke: (route, event) => {
    const { headers, multiValueHeaders, queryStringParameters, multiValueQueryStringParameters } = event;
    handed.push({ headers, multiValueHeaders, queryStringParameters, multiValueQueryStringParameters });
    return inProcess.invoke(route, event);
  },
};

beforeAll(async () => {
  customer = await makeCustomer();
  server = createServer({ requireHostHeader: false }, (req, res) => {
    // As the gateway's own server does: a failure of the gateway is a 500.
    handleRequest(req, res, randomUUID(), {}, recording).catch(() => res.writeHead(500).end());
  });
  url = `http://127.0.0.1:${await listen(server)}/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

async function send(query: [string, string][], headers: [string, string][]) {
  const search = query.map(([name, v]) => `${encodeURIComponent(name)}=${encodeURIComponent(v)}`).join('&');
  const lines = [
    `GET /v1/categories${search ? `?${search}` : ''} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: ${customer.authorization}`,
    ...headers.map(([name, v]) => `${name}: ${v}`),
    'Connection: close',
  ];
  handed.length = 0;
  return answerOfRaw(await rawExchange(url, `${lines.join('\r\n')}\r\n\r\n`));
}

describe('query and header names are ordinary names, Object.prototype’s included', () => {
  it.each<[string, [string, string][], [string, string][]]>([
    ['?constructor=1', [['constructor', '1']], []],
    ['?__proto__', [['__proto__', '']], []],
    [
      '?toString&toString=2',
      [
        ['toString', ''],
        ['toString', '2'],
      ],
      [],
    ],
    ['a header constructor: 1', [], [['constructor', '1']]],
    [
      'headers __proto__ and __PROTO__',
      [],
      [
        ['__proto__', 'a'],
        ['__PROTO__', 'b'],
      ],
    ],
  ])('%s: 200, and the name is in the event as sent', async (_, query, headers) => {
    const answer = await send(query, headers);
    expect(answer.status).toBe(200);
    const [event] = handed;
    for (const [name, v] of query) {
      expect(Object.hasOwn(event?.queryStringParameters ?? {}, name)).toBe(true);
      expect(event?.multiValueQueryStringParameters?.[name]).toContain(v);
    }
    for (const [name] of headers)
      expect(Object.keys(event?.multiValueHeaders ?? {}).map((n) => n.toLowerCase())).toContain(name.toLowerCase());
  });

  it('any names, repeated or not: no 5xx, and single and multi-value maps as API Gateway fills them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(queryName, value), { maxLength: 8 }),
        fc.array(fc.tuple(headerName, value), { maxLength: 8 }),
        async (query, headers) => {
          const answer = await send(query, headers);
          expect(answer.status).toBeLessThan(500);
          expect(answer.status).toBe(200);
          expect(handed).toHaveLength(1);
          const [event] = handed;
          const q = expectedMaps(query, false);
          expect(own(event?.queryStringParameters)).toEqual(q.single);
          expect(own(event?.multiValueQueryStringParameters)).toEqual(q.multi);
          if (query.length === 0) expect(event?.queryStringParameters).toBeNull();
          const sent: [string, string][] = [
            ['Host', '127.0.0.1'],
            ['Authorization', customer.authorization],
            ...headers,
            ['Connection', 'close'],
          ];
          const h = expectedMaps(sent, true);
          expect(own(event?.headers)).toEqual(h.single);
          expect(own(event?.multiValueHeaders)).toEqual(h.multi);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
