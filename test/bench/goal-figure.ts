/**
 * A goal's figure to `digits` decimals, rounded away from the goal's bound, so that a figure that misses is never
 * printed as the bound itself (a load ratio of 0.8997 as "0.900"). 1e-9 absorbs binary fractions (1.1 × 100).
 */
export const roundedUp = (value: number, digits: number): string => (Math.ceil(value * 10 ** digits - 1e-9) / 10 ** digits).toFixed(digits);

export const roundedDown = (value: number, digits: number): string =>
  (Math.floor(value * 10 ** digits + 1e-9) / 10 ** digits).toFixed(digits);
