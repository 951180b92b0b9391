/** NewCategory and Category as the interface defines them (docs/api.md, "Categories"); request and response types are inferred from these. */
import * as v from 'valibot';
import { CONTROL, codePointName, hiddenCharacter, INVISIBLE } from '../unicode/hidden.js';

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;
export { CATEGORY_ALLOWANCE_DEFAULT, CATEGORY_CAP } from './limits.js';

/**
 * Trimming removes Unicode's White_Space but U+0085, a control character refused as the others are. Not
 * String.prototype.trim, which also removes U+FEFF, a format character refused wherever it is. All are in the BMP.
 */
const WHITE_SPACE = /^\p{White_Space}$/u;
const trimmed = (unit: string) => unit !== '\u0085' && WHITE_SPACE.test(unit);

export function trimWhiteSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && trimmed(s.charAt(start))) start++;
  while (end > start && trimmed(s.charAt(end - 1))) end--;
  return s.slice(start, end);
}

const codePoints = (s: string) => [...s].length;

/** A category's name as NewCategory takes it; the admin CLI's rename takes it by the same rules and messages. */
export const CategoryNameSchema = v.pipe(
  v.string('"name" must be a string'),
  // Read by the OpenAPI document only: JSON Schema cannot say "after trimming", nor count code points.
  v.metadata({ minLength: 1, maxLength: NAME_MAX }),
  v.description(
    `Trimmed of white space at either end (Unicode White_Space but U+0085) and NFC-normalised, then 1 to ${NAME_MAX} characters (Unicode code points), with no control characters and no invisible ones (format characters such as zero-width spaces and bidirectional controls, other default-ignorable characters such as the Hangul fillers, line and paragraph separators, the Braille blank U+2800), and not combining marks alone. Unique per environment, compared after NFKC normalisation and full case folding (NFKC_Casefold): "Straße" and "STRASSE", or "ﬁsh" and "fish", are one name.`,
  ),
  v.examples(['Dog']),
  v.transform(trimWhiteSpace),
  v.normalize('NFC'),
  v.check((s) => s.length > 0, '"name" must not be empty or only white space'),
  v.check((s) => codePoints(s) <= NAME_MAX, `"name" must be at most ${NAME_MAX} characters`),
  v.check((s) => !CONTROL.test(s), '"name" must not contain control characters'),
  v.check(
    (s) => !INVISIBLE.test(s),
    (issue) =>
      `"name" must not contain invisible characters such as zero-width spaces or bidirectional controls (found ${codePointName(INVISIBLE.exec(String(issue.input))?.[0] ?? '')})`,
  ),
  v.check(
    (s) => hiddenCharacter(s)?.kind !== 'marks-only',
    (issue) =>
      `"name" must show something: it holds only combining marks, which display as blank (found ${hiddenCharacter(String(issue.input))?.name ?? ''})`,
  ),
);

const NewCategoryFields = v.strictObject(
  {
    name: CategoryNameSchema,
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
