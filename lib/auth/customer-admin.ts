/** The admin's reads and writes of customers; reads are strongly consistent, as the write that follows is guarded on them. */
import { type DynamoDBDocumentClient, GetCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { Limits, Plan } from '../plans.js';
import { usagePlanFor } from '../usage-plans.js';
import { type ChangeOptions, ConcurrentChange, CustomerNotFound, guardOn, transact } from './admin-change.js';
import { type GatewayKey, localGatewayKeyId, newGatewayKeyValue } from './gateway-keys.js';
import { type AuthTables, type Customer, CustomerSchema, customerOf, limitsOf } from './records.js';

/** A fixed plan's limits; Enterprise without its numbers is refused by the write's caller before it gets here. */
const limitsOfPlan = (plan: Plan): Limits => (plan === 'enterprise' ? { perMinute: 1, perDay: 1 } : limitsOf({ plan }));

export function customerAdmin(db: DynamoDBDocumentClient, tables: Pick<AuthTables, 'customers'>) {
  async function getCustomer(customerId: string): Promise<Customer | undefined> {
    const { Item } = await db.send(new GetCommand({ TableName: tables.customers, Key: { customerId }, ConsistentRead: true }));
    return customerOf(Item);
  }

  async function requireCustomer(customerId: string): Promise<Customer> {
    const customer = await getCustomer(customerId);
    if (!customer) throw new CustomerNotFound(`no customer "${customerId}"`);
    return customer;
  }

  const concurrent = (customerId: string) =>
    new ConcurrentChange(`customer "${customerId}" changed while the command ran: nothing was written; run it again`);

  async function changeCustomer(
    seen: Customer,
    updateExpression: string,
    values: Record<string, string>,
    options: ChangeOptions,
  ): Promise<Customer> {
    const guard = guardOn(seen);
    await transact(
      db,
      [
        {
          Update: {
            TableName: tables.customers,
            Key: { customerId: seen.customerId },
            UpdateExpression: updateExpression,
            ConditionExpression: guard.condition,
            ExpressionAttributeValues: { ':now': (options.now ?? new Date()).toISOString(), ...values, ...guard.values },
          },
        },
        ...(options.also ?? []),
      ],
      () => concurrent(seen.customerId),
    );
    return requireCustomer(seen.customerId);
  }

  return {
    getCustomer,

    /**
     * Creates the customer or changes its plan, only if it is still as `seen` (null: none yet). Its gateway key is
     * `gateway`'s (made in API Gateway), else the one it has or a new local one; its usage plan `gateway`'s or the plan's.
     */
    async setPlan(
      customerId: string,
      plan: Plan,
      limits?: Limits,
      options: ChangeOptions & { seen?: Customer | null; purpose?: string; gateway?: GatewayKey } = {},
    ): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      const guard = guardOn(options.seen);
      const purpose = options.purpose === undefined ? '' : ', purpose = :purpose';
      const usagePlan = options.gateway?.usagePlan ?? usagePlanFor(plan, limits ?? limitsOfPlan(plan)).name;
      const gateway = options.gateway
        ? ', gatewayKey = :gatewayKey, gatewayKeyId = :gatewayKeyId, usagePlan = :usagePlan'
        : ', gatewayKey = if_not_exists(gatewayKey, :gatewayKey), gatewayKeyId = if_not_exists(gatewayKeyId, :gatewayKeyId), usagePlan = :usagePlan';
      await transact(
        db,
        [
          {
            Update: {
              TableName: tables.customers,
              Key: { customerId },
              UpdateExpression:
                plan === 'enterprise'
                  ? `SET #plan = :plan, perMinute = :perMinute, perDay = :perDay, createdAt = if_not_exists(createdAt, :now), updatedAt = :now${purpose}${gateway}`
                  : `SET #plan = :plan, createdAt = if_not_exists(createdAt, :now), updatedAt = :now${purpose}${gateway} REMOVE perMinute, perDay`,
              ...(guard.condition ? { ConditionExpression: guard.condition } : {}),
              ExpressionAttributeNames: { '#plan': 'plan' },
              ExpressionAttributeValues: {
                ':plan': plan,
                ':now': now,
                ':gatewayKey': options.gateway?.gatewayKey ?? newGatewayKeyValue(),
                ':gatewayKeyId': options.gateway?.gatewayKeyId ?? localGatewayKeyId(),
                ':usagePlan': usagePlan,
                ...(options.purpose === undefined ? {} : { ':purpose': options.purpose }),
                ...(plan === 'enterprise' ? { ':perMinute': limits?.perMinute, ':perDay': limits?.perDay } : {}),
                ...guard.values,
              },
            },
          },
          ...(options.also ?? []),
        ],
        () => concurrent(customerId),
      );
      return requireCustomer(customerId);
    },

    /** Gives a customer from before usage plans its gateway key: `gateway`, made in API Gateway, else a local one. */
    async assignGatewayKey(seen: Customer, gateway: GatewayKey | undefined, options: ChangeOptions = {}): Promise<Customer> {
      const key = gateway ?? {
        gatewayKey: newGatewayKeyValue(),
        gatewayKeyId: localGatewayKeyId(),
        usagePlan: usagePlanFor(seen.plan, limitsOf(seen)).name,
      };
      return changeCustomer(
        seen,
        'SET gatewayKey = :gatewayKey, gatewayKeyId = :gatewayKeyId, usagePlan = :usagePlan, updatedAt = :now',
        { ':gatewayKey': key.gatewayKey, ':gatewayKeyId': key.gatewayKeyId, ':usagePlan': key.usagePlan },
        options,
      );
    },

    async listCustomers(): Promise<Customer[]> {
      const customers: Customer[] = [];
      for await (const page of paginateScan({ client: db }, { TableName: tables.customers, ConsistentRead: true })) {
        customers.push(...(page.Items ?? []).map((item) => v.parse(CustomerSchema, item)));
      }
      return customers.sort((a, b) => a.customerId.localeCompare(b.customerId));
    },

    async suspend(seen: Customer, reason: string | undefined, options: ChangeOptions = {}): Promise<Customer> {
      return changeCustomer(
        seen,
        reason ? 'SET suspendedAt = :now, suspendedReason = :reason, updatedAt = :now' : 'SET suspendedAt = :now, updatedAt = :now',
        reason ? { ':reason': reason } : {},
        options,
      );
    },

    async resume(seen: Customer, options: ChangeOptions = {}): Promise<Customer> {
      return changeCustomer(seen, 'SET updatedAt = :now REMOVE suspendedAt, suspendedReason', {}, options);
    },
  };
}
