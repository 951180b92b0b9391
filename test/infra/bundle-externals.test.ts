/**
 * UNUSED_SDK_MODULES are left out of every bundle (infra/constructs/api-function.ts) on the ground that nothing our
 * functions run imports them. For the SDK's event-stream support that holds while no DynamoDB operation has an
 * event-stream member: the SDK's own test for loading it (smithy-client's Command) is applied to every command.
 */
import * as dynamodb from '@aws-sdk/client-dynamodb';
import { NormalizedSchema } from '@smithy/core/schema';
import { describe, expect, it } from 'vitest';
import { UNUSED_SDK_MODULES } from '../../infra/constructs/api-function.js';

type OperationSchema = readonly unknown[];
type CommandClass = new (input: object) => { schema?: OperationSchema };

const commands: [string, CommandClass][] = Object.entries(dynamodb as Record<string, unknown>).flatMap(([name, value]) =>
  /^[A-Z]\w*Command$/.test(name) && typeof value === 'function' ? [[name, value as CommandClass]] : [],
);

describe('modules the bundles leave out', () => {
  it('lists the SDK event-stream support', () => {
    expect(UNUSED_SDK_MODULES).toContain('@smithy/core/event-streams');
  });

  it('the check finds an event-stream member where there is one (a structure member with the streaming trait)', () => {
    const events = [3, 'example', 'Events', { streaming: 1 }, [], []];
    expect(NormalizedSchema.of([3, 'example', 'Input', 0, ['events'], [events]] as never).getEventStreamMember()).toBe('events');
    expect(
      NormalizedSchema.of([3, 'example', 'Input', 0, ['item'], [[3, 'example', 'Item', 0, [], []]]] as never).getEventStreamMember(),
    ).toBe('');
  });

  it('no command of the DynamoDB client streams events, so the SDK never imports its event-stream support', () => {
    expect(commands.length).toBeGreaterThan(50);
    const streaming = commands.filter(([, Command]) => {
      const schema = new Command({}).schema;
      // An operation schema is [9, namespace, name, traits, input, output] (smithy-client's command.js).
      expect(Array.isArray(schema) && schema[0] === 9).toBe(true);
      const [, , , , input, output] = schema as OperationSchema;
      return Boolean(
        NormalizedSchema.of(input as never).getEventStreamMember() || NormalizedSchema.of(output as never).getEventStreamMember(),
      );
    });
    expect(streaming.map(([name]) => name)).toEqual([]);
  });
});
