/**
 * Runs before each test file's imports: points the configuration at the run's DynamoDB Local and at tables of
 * this file's own (random prefix), created here, so files never see each other's data; and keeps the file's log
 * lines off the terminal unless a test fails (logs.ts).
 */
import { randomBytes } from 'node:crypto';
import { expect, inject } from 'vitest';
import { ensureTables } from '../../infra/local/tables.js';
import { createDynamoClient } from '../../lib/dynamo/client.js';
import { localTableNames } from '../../lib/dynamo/tables.js';
import { quietLogs } from './logs.js';

const { testPath } = expect.getState();
if (!testPath) throw new Error('setup.ts runs for a test file, and vitest names it');
quietLogs(testPath);

const endpoint = inject('dynamoEndpoint');
export const TEST_PREFIX = `t${randomBytes(4).toString('hex')}-`;

process.env.STAGE ??= 'production';
process.env.DYNAMODB_ENDPOINT = endpoint;
Object.assign(process.env, localTableNames(process.env.STAGE, TEST_PREFIX));

const client = createDynamoClient(endpoint);
// Both environments' tables: the CLI tests act on staging too.
await Promise.all(['production', 'staging'].map((stage) => ensureTables(client, localTableNames(stage, TEST_PREFIX))));
client.destroy();
