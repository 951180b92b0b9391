/**
 * The upgrade to usage plans, on the previous release's customers and keys (test/fixtures/stored-items/), through the
 * local gateway in each deploy step of docs/deploying.md ("Isolation"): (1) usage plans deployed, methods not yet
 * requiring the key; (2) `customers assign-gateway-keys`; (3) every method requiring the key. A customer of the old
 * release is admitted in step 1, refused by step 3 if step 2 was skipped, and admitted in step 3 after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '../../infra/local/gateway.js';
import { GATEWAY_RESPONSES } from '../../lib/api-gateway/gateway-responses.js';
import { petstore } from '../support/cli.js';
import { testAuthStore } from '../support/customers.js';
import { type FixtureEntry, fixtureFile, writeFixtures } from '../support/stored-items.js';

const customers = fixtureFile('customers');
const keys = fixtureFile('keys');
const freeKey = keys.items.find(
  (e: FixtureEntry) => e.item.customerId?.S === 'fixture-free' && e.note.startsWith('active key with a name'),
);

let step1: Gateway;
let step3: Gateway;

beforeAll(async () => {
  await writeFixtures([customers, keys]);
  [step1, step3] = await Promise.all([startGateway(0, { requireGatewayKey: false }), startGateway(0, { requireGatewayKey: true })]);
});
afterAll(async () => {
  await Promise.all([step1?.close(), step3?.close()]);
});

const list = (gateway: Gateway) => fetch(`${gateway.url}/categories`, { headers: { Authorization: `Bearer ${freeKey?.apiKey}` } });

describe('the previous release’s customers', () => {
  it('have no gateway key', async () => {
    for (const entry of customers.items) {
      const customer = await testAuthStore.getCustomer(String(entry.item.customerId?.S));
      expect(customer?.gatewayKey).toBeUndefined();
    }
  });

  it('are admitted in step 1 and, if step 2 is skipped, refused in step 3 with 401 saying the account is not enabled yet', async () => {
    expect((await list(step1)).status).toBe(200);
    const refused = await list(step3);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      code: 'UNAUTHORIZED',
      message: GATEWAY_RESPONSES.INVALID_API_KEY.message,
      status: 401,
    });
  });

  it('each get a gateway key in their plan’s usage plan in step 2, and are admitted in step 3; step 2 again changes nothing', async () => {
    const run = await petstore('customers', 'assign-gateway-keys', '--json');
    expect(run.code).toBe(0);
    const { assigned } = JSON.parse(run.stdout);
    expect(assigned).toEqual(
      expect.arrayContaining([
        { customerId: 'fixture-free', usagePlan: 'free' },
        { customerId: 'fixture-pro', usagePlan: 'pro' },
        { customerId: 'fixture-enterprise', usagePlan: 'enterprise-1000' },
        { customerId: 'fixture-sharded', usagePlan: 'enterprise-100000' },
      ]),
    );
    expect((await list(step3)).status).toBe(200);
    const again = await petstore('customers', 'assign-gateway-keys', '--json');
    expect(JSON.parse(again.stdout).assigned).toEqual([]);
    const audit = JSON.parse((await petstore('audit', '--customer', 'fixture-free', '--json')).stdout);
    expect(audit.map((e: { action: string }) => e.action)).toContain('gateway-key');
  });
});
