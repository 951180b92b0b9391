/**
 * Deprecation dates belong to their route: each deprecated route has its own dates and link, moved on a stage only
 * by the variables its definition names (getPetById: PETS_DEPRECATED_AT, PETS_SUNSET_AT, DOCS_URL). A second
 * deprecated route, defined here, keeps its own through its real Middy chain while the pets variables are set, and
 * the stack gives each function only the variables of its route.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as getPetById } from '../../functions/get-pet-by-id.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { config, parseEnv, setConfig } from '../../lib/config.js';
import { deprecationDates, deprecationVariables } from '../../lib/deprecation.js';
import { HttpError } from '../../lib/http/error-codes.js';
import { operation } from '../../lib/http/operation.js';
import { defineRoute } from '../../lib/routes/definition.js';
import { getPetById as petsRoute } from '../../lib/routes.js';
import { invoke, proxyEvent } from '../support/events.js';

/** The pets variables as a stage might set them: none of them may reach the route below. */
const PETS = {
  PETS_DEPRECATED_AT: '2026-03-01T00:00:00Z',
  PETS_SUNSET_AT: '2030-03-01T00:00:00Z',
  DOCS_URL: 'https://docs.example.com/pets',
};

const retiredOrders = defineRoute({
  operationId: 'listRetiredOrders',
  method: 'GET',
  path: '/store/retired-orders',
  handler: 'list-retired-orders',
  summary: 'A second deprecated operation',
  tag: 'Store',
  stability: 'stable',
  deprecation: { since: '2025-01-01T00:00:00Z', sunset: '2028-01-01T00:00:00Z', docsUrl: 'https://example.com/retired-orders' },
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { counters: 'write' },
  errors: ['NOT_IMPLEMENTED'],
});

const retired = operation(retiredOrders, async () => {
  throw new HttpError('NOT_IMPLEMENTED', 'not implemented');
});

const call = (handler: typeof retired, path: string) =>
  invoke(
    handler,
    proxyEvent({ path, resource: path.replace(/\/\d+$/, '/{petId}'), pathParameters: path.startsWith('/pets/') ? { petId: '4' } : null }),
  );

let saved: ReturnType<typeof config>;
beforeAll(() => {
  saved = config();
  setConfig(parseEnv({ ...process.env, ...PETS }));
});
afterEach(() => resetClock());
afterAll(() => {
  setConfig(saved);
});

describe('a second deprecated route', () => {
  it('keeps its own Deprecation, Sunset and Link while the pets variables are set; getPetById takes them', async () => {
    const own = await call(retired, '/store/retired-orders');
    expect(own.status).toBe(501);
    expect(own.headers.get('Deprecation')).toBe(`@${Date.parse('2025-01-01T00:00:00Z') / 1000}`);
    expect(own.headers.get('Sunset')).toBe(new Date('2028-01-01T00:00:00Z').toUTCString());
    expect(own.headers.get('Link')).toBe('<https://example.com/retired-orders>; rel="deprecation"; type="text/html"');

    const pets = await call(getPetById, '/pets/4');
    expect(pets.status).toBe(501);
    expect(pets.headers.get('Deprecation')).toBe(`@${Date.parse(PETS.PETS_DEPRECATED_AT) / 1000}`);
    expect(pets.headers.get('Sunset')).toBe(new Date(PETS.PETS_SUNSET_AT).toUTCString());
    expect(pets.headers.get('Link')).toBe(`<${PETS.DOCS_URL}>; rel="deprecation"; type="text/html"`);
  });

  it('answers 410 GONE after its own sunset, while getPetById, whose sunset is later, still runs', async () => {
    setClock(() => Date.parse('2028-01-01T00:00:01Z'));
    const own = await call(retired, '/store/retired-orders');
    expect(own.status).toBe(410);
    expect(own.body).toMatchObject({ code: 'GONE', message: expect.stringContaining('2028') });
    expect((await call(getPetById, '/pets/4')).status).toBe(501);
  });

  it('has dates of its own in any environment, and names no variable its function would be given', () => {
    const deprecation = retiredOrders.deprecation;
    expect(deprecation).toBeDefined();
    if (!deprecation) return;
    expect(deprecationDates(deprecation, PETS)).toEqual({
      deprecatedAt: new Date('2025-01-01T00:00:00Z'),
      sunsetAt: new Date('2028-01-01T00:00:00Z'),
      docsUrl: 'https://example.com/retired-orders',
    });
    expect(deprecationVariables(deprecation)).toEqual([]);
    expect(deprecationVariables(petsRoute.deprecation)).toEqual(['PETS_DEPRECATED_AT', 'PETS_SUNSET_AT', 'DOCS_URL']);
  });
});
