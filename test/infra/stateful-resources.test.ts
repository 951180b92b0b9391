/**
 * The resources whose replacement loses something (data, logs, subscriptions, the API's address) are a committed
 * list, infra/stateful-resources.json, and the synthesized templates must match it exactly. CloudFormation replaces
 * a resource when its logical id changes (a construct moved or renamed) or when a property it cannot update
 * changes (a table's key schema, a log group's name); so such a change can only land as a deliberate edit of that
 * list, made after reading the deployment runbook on what the replacement does.
 */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../../lib/dynamo/tables.js';
import { STAGES, type Stage } from '../../lib/stacks.js';
import type { Json, TemplateJson } from '../support/cloudformation.js';
import { perStage, synthApp } from './synth-app.js';

const LIST = new URL('../../infra/stateful-resources.json', import.meta.url);
const StageList = v.record(v.string(), v.unknown());
const committed = v.parse(v.object({ production: StageList, staging: StageList }), JSON.parse(readFileSync(LIST, 'utf8')));
const KeyAttributes = v.array(v.object({ AttributeName: v.string(), AttributeType: v.string() }));
const KeySchema = v.array(v.object({ AttributeName: v.string(), KeyType: v.string() }));

/**
 * What identifies each stateful resource and what would replace it: per type, the properties CloudFormation
 * cannot change without a new resource, and the policies that decide what happens to the old one.
 */
const STATEFUL: Readonly<Record<string, (properties: Json) => Record<string, unknown>>> = {
  // Data. A new key schema, table name or local index is a new table; the old one is kept (Retain) or deleted.
  'AWS::DynamoDB::Table': (p) => {
    const types = Object.fromEntries(v.parse(KeyAttributes, p.AttributeDefinitions).map((a) => [a.AttributeName, a.AttributeType]));
    return {
      keys: v.parse(KeySchema, p.KeySchema).map((k) => `${k.AttributeName} ${k.KeyType} ${types[k.AttributeName]}`),
      tableName: p.TableName ?? null,
      localIndexes: (p.LocalSecondaryIndexes ?? []).map((i: { IndexName: string }) => i.IndexName),
    };
  },
  // Logs. A new name is a new group; the old group keeps or loses what it holds.
  'AWS::Logs::LogGroup': (p) => ({ logGroupName: p.LogGroupName ?? null }),
  // Subscriptions (an e-mail's confirmation) and the ARN others publish to or subscribe at.
  'AWS::SNS::Topic': (p) => ({ topicName: p.TopicName ?? null }),
  // The API's id is in its URL and in its execution log group's name: a new one is a new address for every client.
  'AWS::ApiGateway::RestApi': () => ({}),
  'AWS::ApiGateway::DomainName': (p) => ({ domainName: p.DomainName }),
};

let templates: Record<Stage, TemplateJson>;

beforeAll(() => {
  const app = synthApp();
  templates = perStage((stage) => app.json(stage));
}, 120_000);

/** What identifies one stateful resource, and what happens to the old one when it is replaced. */
interface Stateful extends Record<string, unknown> {
  type: string;
}

function statefulResources(stage: Stage): Record<string, Stateful> {
  const found: [string, Stateful][] = [];
  for (const [logicalId, resource] of Object.entries(templates[stage].Resources)) {
    const describe = STATEFUL[resource.Type];
    if (!describe) continue;
    found.push([
      logicalId,
      {
        type: resource.Type,
        ...describe(resource.Properties ?? {}),
        deletionPolicy: resource.DeletionPolicy ?? 'Delete',
        updateReplacePolicy: resource.UpdateReplacePolicy ?? 'Delete',
      },
    ]);
  }
  return Object.fromEntries(found.sort(([a], [b]) => a.localeCompare(b)));
}

describe.each(STAGES)('the stateful resources of the %s stack', (stage) => {
  it('are exactly those of infra/stateful-resources.json, with the same logical ids, keys, names and policies', () => {
    const actual = statefulResources(stage);
    expect(
      actual,
      `A change would replace or remove a stateful resource of ${stage} (or add one). Read "What replaces a stateful ` +
        'resource" in the deployment runbook; if the change is deliberate, put this in infra/stateful-resources.json:\n' +
        JSON.stringify(actual, null, 2),
    ).toEqual(committed[stage]);
  });

  it('include every table, retained by production and by no one in staging', () => {
    const tables = Object.values(statefulResources(stage)).filter((r) => r.type === 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(TABLES.length);
    for (const table of tables) {
      expect(table).toMatchObject(
        stage === 'production' ? { deletionPolicy: 'Retain', updateReplacePolicy: 'Retain' } : { deletionPolicy: 'Delete' },
      );
    }
  });
});

describe('what a failed first create of production leaves behind', () => {
  it('has no fixed name, so the next create never collides with it (docs/deploying.md, "When the first create fails")', () => {
    const retained = Object.entries(templates.production.Resources).filter(([, r]) => r.DeletionPolicy === 'Retain');
    expect(retained.map(([, r]) => r.Type)).toEqual(expect.arrayContaining(['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup']));
    for (const [logicalId, resource] of retained) {
      for (const [property, value] of Object.entries(resource.Properties ?? {})) {
        if (!property.endsWith('Name')) continue;
        // A name may only be made of something the same create makes anew (the execution log group: the REST API's id).
        expect(JSON.stringify(value), `${logicalId}.${property}`).toMatch(/"Ref":"[A-Za-z0-9]+"/);
      }
    }
    // What the rollback does delete: the function versions (RetainExceptOnCreate).
    const versions = Object.values(templates.production.Resources).filter((r) => r.Type === 'AWS::Lambda::Version');
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) expect(version.DeletionPolicy).toBe('RetainExceptOnCreate');
  });
});
