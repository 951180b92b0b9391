/**
 * Deprecation dates: the defaults of GET /pets/{petId}, the rule that a sunset never precedes the deprecation
 * (RFC 8594), and a route's dates once the environment's overrides apply. Free of configuration parsing.
 */
import type { DeprecationDateVariable, DocsUrlVariable } from './config.js';

export const DEPRECATION_DEFAULTS = {
  deprecatedAt: '2026-06-01T00:00:00Z',
  sunsetAt: '2027-06-01T00:00:00Z',
  docsUrl: 'https://petstore.example.com/docs',
} as const;

/** The environment variables that override one deprecated route's dates and link (declared in lib/config.ts). */
export interface DeprecationVariables {
  since: DeprecationDateVariable;
  sunset: DeprecationDateVariable;
  docsUrl: DocsUrlVariable;
}

/** What a route definition says about its deprecation: ISO dates, the page that explains it, and its overrides. */
export interface Deprecation {
  since: string;
  sunset: string;
  docsUrl: string;
  /** The variables a stage sets to move this route's dates or link; without them no environment moves them. */
  overrides?: DeprecationVariables;
}

export interface DeprecationDates {
  deprecatedAt: Date;
  sunsetAt: Date;
  docsUrl: string;
}

/** An environment's values of the deprecation variables (the functions' configuration, or a stage's settings). */
export type DeprecationOverrides = Partial<Record<DeprecationDateVariable | DocsUrlVariable, string | undefined>>;

/** The variables a route's deprecation reads: those its function is given. */
export function deprecationVariables(deprecation: Deprecation | undefined): (DeprecationDateVariable | DocsUrlVariable)[] {
  const names = deprecation?.overrides;
  return names ? [names.since, names.sunset, names.docsUrl] : [];
}

/** Why a pair of dates is refused, or undefined when the sunset is not earlier than the deprecation. */
export function sunsetProblem(deprecatedAt: string, sunsetAt: string): string | undefined {
  return Date.parse(sunsetAt) < Date.parse(deprecatedAt)
    ? `the sunset date ${sunsetAt} is earlier than the deprecation date ${deprecatedAt}`
    : undefined;
}

/** The definition's dates, overridden by the environment's values of the variables it names; a sunset first throws. */
export function deprecationDates(deprecation: Deprecation, env: DeprecationOverrides = {}): DeprecationDates {
  const names = deprecation.overrides;
  const since = (names && env[names.since]) ?? deprecation.since;
  const sunset = (names && env[names.sunset]) ?? deprecation.sunset;
  const docsUrl = (names && env[names.docsUrl]) ?? deprecation.docsUrl;
  const problem = sunsetProblem(since, sunset);
  if (problem) throw new Error(`Invalid configuration: ${problem}`);
  return { deprecatedAt: new Date(since), sunsetAt: new Date(sunset), docsUrl };
}
