/** What can go wrong when creating a category, in the domain's words; the HTTP boundary maps each to its code. */
export class CategoryExists extends Error {
  override readonly name = 'CategoryExists';
}

export class CategoryLimitReached extends Error {
  override readonly name = 'CategoryLimitReached';
}

/** Creates kept colliding on the id counter past every retry: retryable, like an unavailable store. */
export class CategoryContention extends Error {
  override readonly name = 'CategoryContention';
}
