/**
 * listStoreOrders: GET /store/orders — beta. The specification names it but does not define an order, so it
 * answers 501 NOT_IMPLEMENTED; the request path adds X-API-Stability: beta.
 */
import { HttpError } from '../lib/http/error-codes.js';
import { operation } from '../lib/http/operation.js';
import { listStoreOrders } from '../lib/routes/store-orders.js';

export const handler = operation(listStoreOrders, async () => {
  throw new HttpError(
    'NOT_IMPLEMENTED',
    'GET /store/orders is not implemented yet: the interface specification does not define a store order',
  );
});
