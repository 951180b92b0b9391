/** `customers assign-gateway-keys`, the upgrade step to usage plans: a gateway key for every customer without one, audited. */
import { limitsOf } from '../../auth/records.js';
import { usagePlanFor } from '../../usage-plans.js';
import { defineCommand } from '../command.js';

export const customersAssignGatewayKeys = defineCommand({
  name: 'customers assign-gateway-keys',
  writes: true,
  prepare({ stage }) {
    return async ({ auth, audit, gateway }) => {
      const assigned: { customerId: string; usagePlan: string }[] = [];
      for (const customer of await auth.listCustomers()) {
        if (customer.gatewayKey) continue;
        const usagePlan = usagePlanFor(customer.plan, limitsOf(customer)).name;
        const key = await gateway.place(customer, usagePlan);
        await auth.assignGatewayKey(
          customer,
          key,
          audit.change({ action: 'gateway-key', customerId: customer.customerId, changes: { usagePlan: { from: null, to: usagePlan } } }),
        );
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
