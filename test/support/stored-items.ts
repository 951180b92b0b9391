/**
 * The stored-item fixtures (test/fixtures/stored-items/*.json): items as a released version wrote them, each with a
 * note of what it is, read here with their file's table and written into this test file's tables exactly as they
 * are (attribute values with their types, no conversion).
 */
import { readFileSync } from 'node:fs';
import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';
import { TABLES, type TableId } from '../../lib/dynamo/tables.js';
import { testDb } from './customers.js';

const AttributeValueSchema = v.custom<AttributeValue>(
  (value) => typeof value === 'object' && value !== null && Object.keys(value).length === 1,
);

const FixtureFileSchema = v.object({
  writtenBy: v.string(),
  note: v.string(),
  table: v.picklist(['categories', 'customers', 'keys', 'counters', 'idempotency', 'audit'] satisfies TableId[]),
  items: v.array(
    v.object({
      note: v.string(),
      /** keys.json: the key whose hash the item holds. */
      apiKey: v.optional(v.string()),
      item: v.record(v.string(), AttributeValueSchema),
    }),
  ),
});
export type FixtureFile = v.InferOutput<typeof FixtureFileSchema>;
export type FixtureEntry = FixtureFile['items'][number];

export const FIXTURE_FILES = ['customers', 'keys', 'counters', 'categories', 'idempotency'] as const;

export function fixtureFile(name: (typeof FIXTURE_FILES)[number]): FixtureFile {
  const text = readFileSync(new URL(`../fixtures/stored-items/${name}.json`, import.meta.url), 'utf8');
  return v.parse(FixtureFileSchema, JSON.parse(text));
}

/** The table of this test file that holds a fixture file's items. */
export function tableOf(file: FixtureFile): string {
  const spec = TABLES.find((t) => t.id === file.table);
  const name = spec && process.env[spec.envVar];
  if (!name) throw new Error(`no table for ${file.table}`);
  return name;
}

/** Writes every item of the files into this test file's tables, as it is. */
export async function writeFixtures(files: readonly FixtureFile[]): Promise<void> {
  for (const file of files) {
    const TableName = tableOf(file);
    for (const { item } of file.items) await testDb.send(new PutItemCommand({ TableName, Item: item }));
  }
}
