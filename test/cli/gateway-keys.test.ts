/**
 * Customers' gateway keys through the admin CLI, locally (the customer record is the local gateway's model of API
 * Gateway's keys): set-plan gives one and moves it between usage plans, never changes it, never prints it; an
 * Enterprise limit above what one address may send past the web ACL needs --allow-listed.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cdkJsonStage } from '../../lib/cli/cdk-json.js';
import { largestPerMinuteUnder } from '../../lib/usage-plans.js';
import { petstore } from '../support/cli.js';
import { testAuthStore } from '../support/customers.js';

const id = () => `gw-${randomUUID().slice(0, 8)}`;
const ceiling = largestPerMinuteUnder(cdkJsonStage('production').wafRateLimitPerIp);

describe('customers set-plan', () => {
  it('gives a new customer a gateway key in its plan’s usage plan, and moves the same key on a plan change', async () => {
    const customerId = id();
    const created = await petstore('customers', 'set-plan', customerId, 'free', '--json');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).usagePlan).toBe('free');
    const first = await testAuthStore.getCustomer(customerId);
    expect(first?.gatewayKey).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(first?.usagePlan).toBe('free');
    // The key is an internal identifier: never in the CLI's output.
    expect(created.stdout + created.stderr).not.toContain(first?.gatewayKey);

    expect((await petstore('customers', 'set-plan', customerId, 'enterprise', '--per-minute', '800', '--per-day', '100000')).code).toBe(0);
    const moved = await testAuthStore.getCustomer(customerId);
    expect(moved).toMatchObject({ usagePlan: 'enterprise-1000', gatewayKey: first?.gatewayKey, gatewayKeyId: first?.gatewayKeyId });
  });

  it('gives a customer of an earlier release its key even when the plan does not change', async () => {
    const customerId = id();
    await testAuthStore.setPlan(customerId, 'pro');
    // As the previous release wrote it: no gateway key.
    const { testDb } = await import('../support/customers.js');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await testDb.send(
      new UpdateCommand({
        TableName: process.env.CUSTOMERS_TABLE,
        Key: { customerId },
        UpdateExpression: 'REMOVE gatewayKey, gatewayKeyId, usagePlan',
      }),
    );
    const run = await petstore('customers', 'set-plan', customerId, 'pro');
    expect(run.code).toBe(0);
    expect(await testAuthStore.getCustomer(customerId)).toMatchObject({ usagePlan: 'pro', gatewayKey: expect.any(String) });
  });

  it(`refuses an Enterprise limit above what one address may send (${ceiling} a minute) without --allow-listed: exit 2, nothing written`, async () => {
    const customerId = id();
    const run = await petstore(
      'customers',
      'set-plan',
      customerId,
      'enterprise',
      '--per-minute',
      String(ceiling + 1),
      '--per-day',
      '1000000',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('wafAllowedAddresses');
    expect(run.stderr).toContain('--allow-listed');
    expect(await testAuthStore.getCustomer(customerId)).toBeUndefined();
  });

  it('sells it with --allow-listed, saying that the customer’s addresses must be allow-listed', async () => {
    const customerId = id();
    const run = await petstore(
      'customers',
      'set-plan',
      customerId,
      'enterprise',
      '--per-minute',
      String(ceiling + 1),
      '--per-day',
      '1000000',
      '--allow-listed',
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('wafAllowedAddresses');
    expect(await testAuthStore.getCustomer(customerId)).toMatchObject({ usagePlan: 'enterprise-2000' });
  });

  it('sells a limit at the ceiling without a word, and refuses --allow-listed on a fixed plan', async () => {
    const atCeiling = await petstore('customers', 'set-plan', id(), 'enterprise', '--per-minute', String(ceiling), '--per-day', '1000000');
    expect(atCeiling).toMatchObject({ code: 0, stderr: '' });
    expect((await petstore('customers', 'set-plan', id(), 'pro', '--allow-listed')).code).toBe(2);
  });
});
