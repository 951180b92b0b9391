/** The Pets route: getPetById, deprecated, and the schema of its petId. */
import * as v from 'valibot';
import { DEPRECATION_DEFAULTS } from '../deprecation.js';
import { defineRoute, NOT_DEFINED } from './definition.js';

const INT64_MAX = 2n ** 63n - 1n;
const petIdMessage = (input: unknown) =>
  `"petId" must be a positive integer of at most ${INT64_MAX} (int64), without leading zeros; got "${String(input).slice(0, 40)}"`;

export const PetIdSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,18}$/, (issue) => petIdMessage(issue.input)),
  // Runs even after the regex failed (valibot reports every issue), so only on digits.
  v.check(
    (id) => !/^\d+$/.test(id) || BigInt(id) <= INT64_MAX,
    (issue) => petIdMessage(issue.input),
  ),
  // What a client sends; the OpenAPI document shows it instead of the string the gateway hands over.
  v.metadata({ type: 'integer', format: 'int64', minimum: 1 }),
  v.description(`The pet identifier: a positive integer, int64 (1 to ${INT64_MAX}), written without leading zeros.`),
);

export const getPetById = defineRoute({
  operationId: 'getPetById',
  method: 'GET',
  path: '/pets/{petId}',
  handler: 'get-pet-by-id',
  summary: `Find a pet by id (deprecated; ${NOT_DEFINED})`,
  tag: 'Pets',
  stability: 'stable',
  deprecation: {
    since: DEPRECATION_DEFAULTS.deprecatedAt,
    sunset: DEPRECATION_DEFAULTS.sunsetAt,
    docsUrl: DEPRECATION_DEFAULTS.docsUrl,
    // The names operators have set since the first deploy (CDK context petsDeprecatedAt, petsSunsetAt, docsUrl).
    overrides: { since: 'PETS_DEPRECATED_AT', sunset: 'PETS_SUNSET_AT', docsUrl: 'DOCS_URL' },
  },
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { counters: 'write' },
  params: v.object({ petId: PetIdSchema }),
  errors: ['NOT_IMPLEMENTED'],
});
