/** NewCategory and Category as CONTRACT.md defines them; request and response types are inferred from these. */
import * as v from 'valibot';

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;
/**
 * At most this many categories per environment. Worst case a category serialises to about 3.5 KB (100
 * four-byte characters of name, 500 escaped characters of description), so a full list stays near 3.5 MB, under
 * Lambda's 6 MB response limit; typical lists are a few KB.
 */
export const CATEGORY_CAP = 1_000;

// biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no control characters"
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
const codePoints = (s: string) => [...s].length;

const NewCategoryFields = v.strictObject(
  {
    name: v.pipe(
      v.string('"name" must be a string'),
      // Read by the OpenAPI document only: JSON Schema cannot say "after trimming", nor count code points.
      v.metadata({ minLength: 1, maxLength: NAME_MAX }),
      v.description(
        `Trimmed and NFC-normalised, then 1 to ${NAME_MAX} characters (Unicode code points), no control characters. Unique per environment, compared ignoring case.`,
      ),
      v.examples(['Dog']),
      v.trim(),
      v.normalize('NFC'),
      v.check((s) => s.length > 0, '"name" must not be empty or only white space'),
      v.check((s) => codePoints(s) <= NAME_MAX, `"name" must be at most ${NAME_MAX} characters`),
      v.check((s) => !CONTROL.test(s), '"name" must not contain control characters'),
    ),
    description: v.optional(
      v.pipe(
        v.string('"description" must be a string'),
        v.metadata({ maxLength: DESCRIPTION_MAX }),
        v.description(`At most ${DESCRIPTION_MAX} characters; stored as sent.`),
        v.examples(['Domestic dogs']),
        v.check((s) => codePoints(s) <= DESCRIPTION_MAX, `"description" must be at most ${DESCRIPTION_MAX} characters`),
      ),
    ),
  },
  // Replaced per field by the body check (lib/http/validation.ts), which knows the offending key.
  'unknown field',
);
export const NewCategorySchema = v.pipe(
  NewCategoryFields,
  v.title('NewCategory'),
  v.description('A category to create. Any other field, `id` included, is refused with 400 VALIDATION_FAILED naming the field.'),
);
export type NewCategory = v.InferOutput<typeof NewCategorySchema>;

export const CategorySchema = v.object({
  id: v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.metadata({ format: 'int64' }),
    v.description('Assigned by the service: 1, 2, 3, … in creation order, never reused.'),
  ),
  // Stored only after NewCategory's checks: lengths in code points, as JSON Schema counts them.
  name: v.pipe(v.string(), v.metadata({ maxLength: NAME_MAX })),
  description: v.optional(v.pipe(v.string(), v.metadata({ maxLength: DESCRIPTION_MAX }), v.description('Omitted when not set.'))),
});
export type Category = v.InferOutput<typeof CategorySchema>;

/** Names are unique per environment, compared case-insensitively after trimming and NFC normalisation. */
export function nameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase().normalize('NFC');
}
