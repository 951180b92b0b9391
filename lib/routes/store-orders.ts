/** The Store route: listStoreOrders, beta. */
import { defineRoute, NOT_DEFINED } from './definition.js';

export const listStoreOrders = defineRoute({
  operationId: 'listStoreOrders',
  method: 'GET',
  path: '/store/orders',
  handler: 'list-store-orders',
  summary: `List store orders (beta; ${NOT_DEFINED})`,
  tag: 'Store',
  stability: 'beta',
  quota: 'consume',
  runsBeforeAdmission: true,
  tables: { counters: 'write' },
  errors: ['NOT_IMPLEMENTED'],
});
