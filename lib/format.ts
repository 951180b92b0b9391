/**
 * Numbers in text with thousands separators (1,000). Written out rather than `toLocaleString`: that loads ICU's
 * locale data, about 11 ms of every function's cold start on Node.js 24 when done at module scope.
 */
export function withThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
