/** The name a misspelling probably meant, for messages that refuse an unknown one ("did you mean banSeconds?"). */
/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours count one each. */
function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d: number[] = Array.from({ length: (a.length + 1) * width }, (_, n) => (n < width ? n : n % width === 0 ? n / width : 0));
  const at = (i: number, j: number) => d[i * width + j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/** " (did you mean X?)" for the nearest of `known` within two edits (ignoring case), the first listed on a tie; else "". */
export function didYouMean(name: string, known: readonly string[]): string {
  let closest: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (closest === undefined || distance < closest.distance)) closest = { name: candidate, distance };
  }
  return closest === undefined ? '' : ` (did you mean ${closest.name}?)`;
}
