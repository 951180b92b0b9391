/** The deprecation and sunset dates of GET /pets/{petId} are configuration; a sunset before the deprecation is refused. */
import { assert, describe, expect, it } from 'vitest';
import { config, parseEnv } from '../../lib/config.js';
import { type DeprecationOverrides, deprecationDates as datesOf } from '../../lib/deprecation.js';
import { getPetById } from '../../lib/routes.js';

const withDates = (dates: Record<string, string>) => parseEnv({ STAGE: 'production', ...dates });
const deprecation = getPetById.deprecation ?? assert.fail('getPetById is deprecated');
const deprecationDates = (overrides: DeprecationOverrides = config()) => datesOf(deprecation, overrides);

describe('deprecation and sunset dates', () => {
  it('the defaults put the sunset after the deprecation', () => {
    const { deprecatedAt, sunsetAt } = deprecationDates(withDates({}));
    expect(sunsetAt.getTime()).toBeGreaterThan(deprecatedAt.getTime());
  });

  it('the configuration this run uses is consistent', () => {
    expect(() => deprecationDates()).not.toThrow();
  });

  it('a sunset on the deprecation date itself is allowed', () => {
    const same = '2026-06-01T00:00:00Z';
    expect(deprecationDates(withDates({ PETS_DEPRECATED_AT: same, PETS_SUNSET_AT: same })).sunsetAt.toISOString()).toBe(
      '2026-06-01T00:00:00.000Z',
    );
  });

  it('a sunset earlier than the deprecation fails with a message naming both dates', () => {
    const bad = withDates({ PETS_DEPRECATED_AT: '2027-01-01T00:00:00Z', PETS_SUNSET_AT: '2026-01-01T00:00:00Z' });
    expect(() => deprecationDates(bad)).toThrow(
      'Invalid configuration: the sunset date 2026-01-01T00:00:00Z is earlier than the deprecation date 2027-01-01T00:00:00Z',
    );
  });

  it('a date that is not an ISO 8601 timestamp fails the configuration', () => {
    expect(() => withDates({ PETS_SUNSET_AT: 'next year' })).toThrow(/PETS_SUNSET_AT: must be an ISO 8601 timestamp/);
  });
});
