/** listStoreOrders: GET /store/orders, beta: 501, as the specification does not define an order. */
import { HttpError } from '../lib/http/error-codes.js';
import { operation } from '../lib/http/operation.js';
import { listStoreOrders } from '../lib/routes/store-orders.js';

export const handler = operation(listStoreOrders, async () => {
  throw new HttpError(
    'NOT_IMPLEMENTED',
    'GET /store/orders is not implemented yet: the interface specification does not define a store order',
  );
});
