/**
 * Runs before each test file's imports: keeps the file's log lines off the terminal unless a test fails (logs.ts),
 * and points the configuration at the run's DynamoDB Local and at tables of this file's own (random prefix), so files
 * never see each other's data. The tables are created here, except for the files of NO_TABLES, which never reach
 * DynamoDB (one that did would fail on the missing tables), and the unisolated infra project, which has none.
 */
import { randomBytes } from 'node:crypto';
import { expect, inject } from 'vitest';
import { localTableNames } from '../../lib/dynamo/tables.js';
import { quietLogs } from './logs.js';

/** Test files that read no table: they get the variables, not the tables. */
const NO_TABLES = [
  'auth/authorizer-failures',
  'auth/keys',
  'categories/name-keys',
  'cli/commands',
  'cli/config',
  'client/client',
  'config/deprecation-dates',
  'docs/links',
  'docs/readme-variables',
  'docs/tables',
  'dynamo/backoff',
  'dynamo/budget',
  'http/operation-types',
  'local/repeated-names',
  'local/source-watch',
  'local/throttles',
  'openapi/document',
  'rate-limit/unavailable',
  'rate-limit/windows',
  'routes/definitions',
  'runtime/node-version',
  'structure/check',
  'structure/product-files',
  'structure/reach',
  'structure/usage-rate-limit',
  'unicode/nfkc-casefold',
].map((name) => `/test/${name}.test.ts`);

const { testPath } = expect.getState();
if (!testPath) throw new Error('setup.ts runs for a test file, and vitest names it');
quietLogs(testPath);

/** Only the projects with DynamoDB Local (vitest.config.ts) have an endpoint; the others get one nothing answers. */
const endpoint = inject('dynamoEndpoint') ?? 'http://127.0.0.1:9';
export const TEST_PREFIX = `t${randomBytes(4).toString('hex')}-`;

process.env.STAGE ??= 'production';
process.env.DYNAMODB_ENDPOINT = endpoint;
Object.assign(process.env, localTableNames(process.env.STAGE, TEST_PREFIX));

if (inject('dynamoEndpoint') && !NO_TABLES.some((file) => testPath.endsWith(file))) {
  const [{ ensureTables }, { createDynamoClient }] = await Promise.all([
    import('../../infra/local/tables.js'),
    import('../../lib/dynamo/client.js'),
  ]);
  const client = createDynamoClient(endpoint);
  // Both environments' tables: the CLI tests act on staging too.
  await Promise.all(['production', 'staging'].map((stage) => ensureTables(client, localTableNames(stage, TEST_PREFIX))));
  client.destroy();
}
