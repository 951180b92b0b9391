/** `list-categories` → `ListCategories`: construct ids derived from file and response-type names. */
export function constructIdOf(kebab: string): string {
  const parts = kebab.split('-');
  return parts.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
}
