/**
 * The route table: every operation of the API, each described once and completely (lib/routes/, one file per tag).
 * The OpenAPI document, the local gateway, the CDK stack and its IAM grants are generated from this table; a handler
 * file imports its own route's file alone, so that its bundle carries no other route's schemas.
 */
import { createCategory, listCategories } from './routes/categories.js';
import type { Route } from './routes/definition.js';
import { getPetById } from './routes/pets.js';
import { getRateLimitStatus } from './routes/rate-limit-status.js';
import { listStoreOrders } from './routes/store-orders.js';

export type { Access, ParamsSchema, Quota, Route, Tag } from './routes/definition.js';
export { createCategory, getPetById, getRateLimitStatus, listCategories, listStoreOrders };

export const ROUTES: readonly Route[] = [listCategories, createCategory, getRateLimitStatus, getPetById, listStoreOrders];
