/**
 * `customers assign-gateway-keys`: the upgrade step of the release that brings usage plans. Every customer without a
 * gateway key (one made before that release) gets one, in its plan's usage plan (lib/usage-plans.ts), audited; with
 * --aws the key is made in API Gateway. Run between the deploy that adds the usage plans and the one that makes every
 * method require the key (docs/deploying.md, "Isolation"); running it again changes nothing.
 */
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { usagePlanFor } from '../../usage-plans.js';
import { defineCommand } from '../command.js';

export const customersAssignGatewayKeys = defineCommand({
  name: 'customers assign-gateway-keys',
  synopsis: '',
  positionals: [0, 0],
  writes: true,
  flags: {},
  prepare({ stage }) {
    return async ({ auth, audit, gateway }) => {
      const assigned: { customerId: string; usagePlan: string }[] = [];
      for (const customer of await auth.listCustomers()) {
        if (customer.gatewayKey) continue;
        const usagePlan = usagePlanFor(customer.plan, limitsOf(customer)).name;
        const key = await gateway.place(customer, usagePlan);
        const now = new Date(nowMs());
        await auth.assignGatewayKey(customer, key, {
          now,
          also: [
            audit.entry(
              { action: 'gateway-key', customerId: customer.customerId, changes: { usagePlan: { from: null, to: usagePlan } } },
              now,
            ),
          ],
        });
        assigned.push({ customerId: customer.customerId, usagePlan });
      }
      return {
        json: { stage, assigned },
        text: assigned.length
          ? `${assigned.length} customer(s) given a gateway key (${stage}):\n${assigned.map((a) => `  ${a.customerId}: usage plan ${a.usagePlan}`).join('\n')}`
          : `every customer of ${stage} has a gateway key: nothing changed`,
      };
    };
  },
});
