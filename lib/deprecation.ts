/**
 * The deprecation of GET /pets/{petId}: its default dates and documentation link, and the rule that a sunset never
 * precedes the deprecation (RFC 8594). Free of runtime configuration so that the functions (lib/config.ts), the
 * OpenAPI document and the CDK app (infra/config.ts) share one definition.
 */
export const DEPRECATION_DEFAULTS = {
  deprecatedAt: '2026-06-01T00:00:00Z',
  sunsetAt: '2027-06-01T00:00:00Z',
  docsUrl: 'https://petstore.example.com/docs',
} as const;

export interface DeprecationDates {
  deprecatedAt: Date;
  sunsetAt: Date;
}

/** Why a pair of dates is refused, or undefined when the sunset is not earlier than the deprecation. */
export function sunsetProblem(deprecatedAt: string, sunsetAt: string): string | undefined {
  return Date.parse(sunsetAt) < Date.parse(deprecatedAt)
    ? `the sunset date ${sunsetAt} is earlier than the deprecation date ${deprecatedAt}`
    : undefined;
}

export function checkDeprecationDates(deprecatedAt: string, sunsetAt: string): DeprecationDates {
  const problem = sunsetProblem(deprecatedAt, sunsetAt);
  if (problem) throw new Error(`Invalid configuration: ${problem}`);
  return { deprecatedAt: new Date(deprecatedAt), sunsetAt: new Date(sunsetAt) };
}
