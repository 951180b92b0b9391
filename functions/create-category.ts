/** createCategory: POST /categories — validates a NewCategory and stores it under a new id. */
import { parseNewCategory } from '../lib/categories/schema.js';
import { createCategory } from '../lib/categories/store.js';
import { HttpError } from '../lib/http/errors.js';
import { operation } from '../lib/http/operation.js';
import { json } from '../lib/http/response.js';

export const handler = operation('createCategory', async (event) => {
  const parsed = parseNewCategory(event.body as unknown);
  if (!parsed.ok) throw new HttpError('VALIDATION_FAILED', parsed.message);
  return json(201, await createCategory(parsed.value));
});
