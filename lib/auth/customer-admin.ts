/**
 * The admin's reads and writes of customers: create one or change its plan, list them, suspend and resume. Every
 * read is strongly consistent, because the write that follows it is guarded on what it saw (admin-change.ts).
 */
import { type DynamoDBDocumentClient, GetCommand, ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
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
            ExpressionAttributeValues: { ...values, ...guard.values },
          },
        },
        ...(options.also ?? []),
      ],
      () => concurrent(seen.customerId),
    );
    return requireCustomer(seen.customerId);
  }

  return {
    /** The customer, read consistently: a guarded write follows. */
    getCustomer,

    /**
     * Creates the customer or changes its plan; Enterprise takes both numbers, other plans drop them. `seen` is the
     * customer as the caller read it (null: none yet); the write happens only if it is still so. `purpose` marks a
     * customer that is not one (records.ts), in the same write. The customer's gateway key is kept if it has one, else
     * `gateway`'s (the admin CLI's, made in API Gateway) or a new local one; its usage plan becomes `gateway`'s, or the
     * plan's (lib/usage-plans.ts).
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

    /**
     * Gives a customer as `seen` (without a gateway key, from a release before usage plans) its gateway key in its
     * plan's usage plan: `gateway` when the CLI made it in API Gateway, else a local one.
     */
    async assignGatewayKey(seen: Customer, gateway: GatewayKey | undefined, options: ChangeOptions = {}): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      const key = gateway ?? {
        gatewayKey: newGatewayKeyValue(),
        gatewayKeyId: localGatewayKeyId(),
        usagePlan: usagePlanFor(seen.plan, limitsOf(seen)).name,
      };
      return changeCustomer(
        seen,
        'SET gatewayKey = :gatewayKey, gatewayKeyId = :gatewayKeyId, usagePlan = :usagePlan, updatedAt = :now',
        { ':gatewayKey': key.gatewayKey, ':gatewayKeyId': key.gatewayKeyId, ':usagePlan': key.usagePlan, ':now': now },
        options,
      );
    },

    /** Every customer, by id. */
    async listCustomers(): Promise<Customer[]> {
      const customers: Customer[] = [];
      let startKey: ScanCommandOutput['LastEvaluatedKey'];
      do {
        const page = await db.send(new ScanCommand({ TableName: tables.customers, ExclusiveStartKey: startKey, ConsistentRead: true }));
        customers.push(...(page.Items ?? []).map((item) => v.parse(CustomerSchema, item)));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return customers.sort((a, b) => a.customerId.localeCompare(b.customerId));
    },

    /** Suspends a customer as `seen` (not suspended); its keys are refused from then on (within the cache TTL). */
    async suspend(seen: Customer, reason: string | undefined, options: ChangeOptions = {}): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      return changeCustomer(
        seen,
        reason ? 'SET suspendedAt = :now, suspendedReason = :reason, updatedAt = :now' : 'SET suspendedAt = :now, updatedAt = :now',
        { ':now': now, ...(reason ? { ':reason': reason } : {}) },
        options,
      );
    },

    /** Lifts the suspension of a customer as `seen` (suspended). */
    async resume(seen: Customer, options: ChangeOptions = {}): Promise<Customer> {
      const now = (options.now ?? new Date()).toISOString();
      return changeCustomer(seen, 'SET updatedAt = :now REMOVE suspendedAt, suspendedReason', { ':now': now }, options);
    },
  };
}
