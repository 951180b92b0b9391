/**
 * How many categories an environment, and each customer in it, may hold (the configuration reads these too).
 * At most CATEGORY_CAP per environment at once (a deleted one makes room). Worst case a category serialises
 * to about 3.5 KB (100 four-byte characters of name, 500 escaped characters of description), so a full list stays
 * near 3.5 MB, under Lambda's 6 MB response limit; typical lists are a few KB.
 */
export const CATEGORY_CAP = 1_000;
/** A customer's categories per environment unless CATEGORY_ALLOWANCE says otherwise: none can fill the shared list. */
export const CATEGORY_ALLOWANCE_DEFAULT = 100;
