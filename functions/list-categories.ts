/** listCategories: GET /categories — every category, ascending id. */
import { categoryList } from '../lib/categories/list.js';
import { tableName } from '../lib/config.js';
import { documentClient } from '../lib/dynamo/client.js';
import { operation } from '../lib/http/operation.js';
import { listCategories } from '../lib/routes/categories.js';

const categories = categoryList(documentClient(), tableName('CATEGORIES_TABLE'));

export const handler = operation(listCategories, () => categories.list());
