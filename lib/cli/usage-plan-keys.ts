/** Customers' API Gateway keys: locally only the customer's record; with --aws made in API Gateway, moved between usage plans. */
import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { type GatewayKey, localGatewayKeyId, newGatewayKeyValue } from '../auth/gateway-keys.js';
import type { Customer } from '../auth/records.js';
import type { Stage } from '../stacks.js';

type Held = Pick<Customer, 'customerId' | 'gatewayKey' | 'gatewayKeyId' | 'usagePlan'>;

export interface GatewayKeys {
  /** Puts the customer's gateway key (made if it has none) into `usagePlan`, out of the one it was in. */
  place(customer: Held, usagePlan: string): Promise<GatewayKey>;
  /** Deletes the customer's gateway key (verify's temporary customer, at the end of its run). */
  remove(customer: Held): Promise<string>;
}

export const localGatewayKeys: GatewayKeys = {
  async place(customer, usagePlan) {
    return {
      gatewayKey: customer.gatewayKey ?? newGatewayKeyValue(),
      gatewayKeyId: customer.gatewayKeyId ?? localGatewayKeyId(),
      usagePlan,
    };
  },
  async remove() {
    return 'none to delete locally: the customer record is the local gateway key';
  },
};

/** A catch that lets the error of one kind pass (the state wanted is there already) and throws any other. */
const unless = (kind: abstract new (...args: never[]) => Error) => (error: unknown) => {
  if (!(error instanceof kind)) throw error;
};

export function awsGatewayKeys(
  stage: Stage,
  usagePlanIds: Readonly<Record<string, string>>,
  client = new APIGatewayClient({}),
): GatewayKeys {
  const planId = (name: string) => {
    const id = usagePlanIds[name];
    if (!id) throw new Error(`the ${stage} stack has no usage plan ${name}: deploy this version of the stack first`);
    return id;
  };
  return {
    async place(customer, usagePlan) {
      let { gatewayKey, gatewayKeyId } = customer;
      if (!gatewayKey || !gatewayKeyId || gatewayKeyId.startsWith('local-')) {
        gatewayKey = newGatewayKeyValue();
        const made = await client.send(
          new CreateApiKeyCommand({
            name: `petstore-${stage}-${customer.customerId}`,
            description: `Pet Store ${stage}: the usage plan key of customer ${customer.customerId} (not a client's key)`,
            value: gatewayKey,
            enabled: true,
          }),
        );
        if (!made.id) throw new Error('API Gateway made the API key but returned no id');
        gatewayKeyId = made.id;
      }
      // A key may be in one usage plan of a stage only: out of the old one first.
      if (customer.usagePlan && customer.usagePlan !== usagePlan && customer.gatewayKeyId === gatewayKeyId) {
        const gone = new DeleteUsagePlanKeyCommand({ usagePlanId: planId(customer.usagePlan), keyId: gatewayKeyId });
        await client.send(gone).catch(unless(NotFoundException));
      }
      // Already there (a run that stopped before its DynamoDB write, run again) is fine.
      const added = new CreateUsagePlanKeyCommand({ usagePlanId: planId(usagePlan), keyId: gatewayKeyId, keyType: 'API_KEY' });
      await client.send(added).catch(unless(ConflictException));
      return { gatewayKey, gatewayKeyId, usagePlan };
    },
    async remove(customer) {
      if (!customer.gatewayKeyId || customer.gatewayKeyId.startsWith('local-')) return 'none';
      await client.send(new DeleteApiKeyCommand({ apiKey: customer.gatewayKeyId })).catch(unless(NotFoundException));
      return customer.gatewayKeyId;
    },
  };
}
