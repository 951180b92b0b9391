/**
 * A call to a deprecated operation is counted by the write that admits it: no write of its own, and a refused call is
 * not counted. The writes are counted on a getPetById instance of the test's own (newInstance: the handler imported
 * afresh, with its own clients), so a refusal batch another test's instance writes on a timer is never counted as
 * one of them. Every handler this file calls is such an instance.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deprecatedCallStore } from '../../lib/rate-limit/deprecated-calls.js';
import { testDb } from '../support/customers.js';
import { newInstance } from '../support/dynamo-calls.js';
import { invoke, proxyEvent } from '../support/events.js';

/** 2036-03-10 12:34:00 UTC: a minute start in the future (DynamoDB Local applies the counters' TTL). */
const T0 = Date.UTC(2036, 2, 10, 12, 34, 0);
let now = T0;

/** A getPetById instance reading the clock above, with the pets' sunset moved past it. */
const getPetById = () =>
  newInstance(
    async () => {
      const { config, setConfig } = await import('../../lib/config.js');
      setConfig({ ...config(), PETS_SUNSET_AT: '2099-01-01T00:00:00Z' });
      return import('../../functions/get-pet-by-id.js');
    },
    () => now,
  );

describe('deprecated operations are counted per customer', () => {
  it('each admitted call to getPetById is counted with its time, by the admitting write itself; refused ones are not', async () => {
    const limits = { perMinute: 2, perDay: 100 };
    const customerId = `rl-enterprise-${randomUUID().slice(0, 8)}`;
    const authorizer = {
      customerId,
      keyId: 'key_0000000000000000',
      plan: 'enterprise',
      perMinute: String(limits.perMinute),
      perDay: String(limits.perDay),
    };
    const instance = await getPetById();
    const call = () =>
      invoke(instance.handler, proxyEvent({ path: '/pets/7', resource: '/pets/{petId}', pathParameters: { petId: '7' }, authorizer }));
    expect((await call()).status).toBe(501);
    now += 1_500;
    expect((await call()).status).toBe(501);
    // One write per admitted call: the admission, which counts the call too.
    expect(instance.calls.take().map((c) => c.command)).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    now += 1_000;
    expect((await call()).status).toBe(429);
    const last = new Date(Math.floor((T0 + 1_500) / 1000) * 1000).toISOString();
    expect(await deprecatedCallStore(testDb, process.env.COUNTERS_TABLE ?? '').read(customerId)).toEqual({
      getPetById: { count: 2, last },
    });
  });
});
