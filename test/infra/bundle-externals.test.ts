/**
 * UNUSED_SDK_MODULES are left out of every bundle (infra/constructs/api-function.ts) on the ground that nothing our
 * functions run imports them. For the SDK's event-stream support that holds while no DynamoDB operation has an
 * event-stream member: the SDK's own test for loading it (smithy-client's Command) is applied to every operation.
 */
import * as dynamodb from '@aws-sdk/client-dynamodb';
import { NormalizedSchema } from '@smithy/core/schema';
import type { StaticOperationSchema, StaticStructureSchema } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { UNUSED_SDK_MODULES } from '../../infra/constructs/api-function.js';

/**
 * Every operation of the DynamoDB client, by the name of its command. A command carries its operation's schema,
 * which the client also exports as `<Operation>$`: [9, namespace, name, traits, input, output].
 */
const operations: [string, StaticOperationSchema][] = Object.entries(dynamodb).flatMap(([name, value]) =>
  name.endsWith('$') && Array.isArray(value) && value[0] === 9 ? [[`${name.slice(0, -1)}Command`, value]] : [],
);
const commandNames = Object.keys(dynamodb).filter((name) => /^[A-Z]\w*Command$/.test(name));

describe('modules the bundles leave out', () => {
  it('lists the SDK event-stream support', () => {
    expect(UNUSED_SDK_MODULES).toContain('@smithy/core/event-streams');
  });

  it('the check finds an event-stream member where there is one (a structure member with the streaming trait)', () => {
    const events: StaticStructureSchema = [3, 'example', 'Events', { streaming: 1 }, [], []];
    const withEvents: StaticStructureSchema = [3, 'example', 'Input', 0, ['events'], [events]];
    const without: StaticStructureSchema = [3, 'example', 'Input', 0, ['item'], [[3, 'example', 'Item', 0, [], []]]];
    expect(NormalizedSchema.of(withEvents).getEventStreamMember()).toBe('events');
    expect(NormalizedSchema.of(without).getEventStreamMember()).toBe('');
  });

  it('every command of the DynamoDB client carries the operation schema the client exports', () => {
    expect(commandNames.length).toBeGreaterThan(50);
    expect(operations.map(([name]) => name).sort()).toEqual([...commandNames].sort());
    expect(new dynamodb.GetItemCommand({ TableName: 't', Key: {} }).schema).toBe(dynamodb.GetItem$);
    expect(new dynamodb.TransactWriteItemsCommand({ TransactItems: [] }).schema).toBe(dynamodb.TransactWriteItems$);
  });

  it('no command of the DynamoDB client streams events, so the SDK never imports its event-stream support', () => {
    const streaming = operations.filter(
      ([, [, , , , input, output]]) =>
        NormalizedSchema.of(input).getEventStreamMember() || NormalizedSchema.of(output).getEventStreamMember(),
    );
    expect(streaming.map(([name]) => name)).toEqual([]);
  });
});
