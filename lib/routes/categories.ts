/** The Categories routes: listCategories and createCategory. */
import * as v from 'valibot';
import { CATEGORY_CAP, CategorySchema, NewCategorySchema } from '../categories/schema.js';
import { withThousands } from '../format.js';
import { defineRoute } from './definition.js';

export const listCategories = defineRoute({
  operationId: 'listCategories',
  method: 'GET',
  path: '/categories',
  handler: 'list-categories',
  summary: 'List all categories, in ascending id order',
  description: `All categories, ascending by id. There are no pagination or filter parameters: an environment holds at most ${withThousands(CATEGORY_CAP)}.`,
  tag: 'Categories',
  stability: 'stable',
  quota: 'consume',
  runsBeforeAdmission: true,
  tables: { categories: 'read', counters: 'write' },
  success: {
    status: 200,
    description: 'Every category, in ascending id order.',
    schema: v.pipe(v.array(CategorySchema), v.metadata({ maxItems: CATEGORY_CAP })),
  },
  errors: [],
});

export const createCategory = defineRoute({
  operationId: 'createCategory',
  method: 'POST',
  path: '/categories',
  handler: 'create-category',
  summary: 'Create a category',
  tag: 'Categories',
  stability: 'stable',
  quota: 'consume',
  runsBeforeAdmission: false,
  tables: { categories: 'write', counters: 'write', idempotency: 'write' },
  idempotent: true,
  body: NewCategorySchema,
  success: { status: 201, description: 'The category created, with its new id.', schema: CategorySchema },
  errors: ['CATEGORY_EXISTS', 'CATEGORY_LIMIT_REACHED'],
});
