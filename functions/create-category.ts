/** createCategory: POST /categories — stores the checked NewCategory under a new id; a retry with its Idempotency-Key gets the same answer. */
import { categoryStore } from '../lib/categories/store.js';
import { tableName } from '../lib/config.js';
import { documentClient } from '../lib/dynamo/client.js';
import { jsonBody } from '../lib/http/json-body.js';
import { operation } from '../lib/http/operation.js';
import { idempotentRunner } from '../lib/idempotency/runner.js';
import { createCategory } from '../lib/routes/categories.js';

const categories = categoryStore(documentClient(), tableName('CATEGORIES_TABLE'));

export const handler = operation(createCategory, {
  handle: ({ body, caller }) => categories.create(body, caller.customerId),
  idempotency: idempotentRunner(createCategory),
  // A new instance reads the id counter while the request waits for admission (lib/categories/store.ts).
  prepare: categories.prepare,
  readBody: jsonBody,
});
