/** listCategories: GET /categories — every category, ascending id. */
import { listCategories } from '../lib/categories/store.js';
import { operation } from '../lib/http/operation.js';
import { json } from '../lib/http/response.js';

export const handler = operation('listCategories', async () => json(200, await listCategories()));
