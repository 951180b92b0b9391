/**
 * Deprecation dates: the defaults of GET /pets/{petId}, the rule that a sunset never precedes the deprecation
 * (RFC 8594), and the dates in force for a route once the environment's overrides apply. Free of runtime
 * configuration parsing so the route definitions, the OpenAPI document and the CDK settings share it.
 */
export const DEPRECATION_DEFAULTS = {
  deprecatedAt: '2026-06-01T00:00:00Z',
  sunsetAt: '2027-06-01T00:00:00Z',
  docsUrl: 'https://petstore.example.com/docs',
} as const;

/** What a route definition says about its deprecation: ISO dates and the page that explains it. */
export interface Deprecation {
  since: string;
  sunset: string;
  docsUrl: string;
}

export interface DeprecationDates {
  deprecatedAt: Date;
  sunsetAt: Date;
  docsUrl: string;
}

/**
 * An environment's overrides. They are named after the one deprecated operation (PETS_*) because that is what
 * operators set in CDK context (`petsDeprecatedAt`, `petsSunsetAt`); a second deprecated operation would get its own.
 */
export interface DeprecationOverrides {
  PETS_DEPRECATED_AT?: string | undefined;
  PETS_SUNSET_AT?: string | undefined;
  DOCS_URL?: string | undefined;
}

/** Why a pair of dates is refused, or undefined when the sunset is not earlier than the deprecation. */
export function sunsetProblem(deprecatedAt: string, sunsetAt: string): string | undefined {
  return Date.parse(sunsetAt) < Date.parse(deprecatedAt)
    ? `the sunset date ${sunsetAt} is earlier than the deprecation date ${deprecatedAt}`
    : undefined;
}

/** The dates in force: the definition's, overridden by the environment's; throws on a sunset before deprecation. */
export function deprecationDates(deprecation: Deprecation, overrides: DeprecationOverrides = {}): DeprecationDates {
  const since = overrides.PETS_DEPRECATED_AT ?? deprecation.since;
  const sunset = overrides.PETS_SUNSET_AT ?? deprecation.sunset;
  const problem = sunsetProblem(since, sunset);
  if (problem) throw new Error(`Invalid configuration: ${problem}`);
  return { deprecatedAt: new Date(since), sunsetAt: new Date(sunset), docsUrl: overrides.DOCS_URL ?? deprecation.docsUrl };
}
