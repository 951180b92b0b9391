/**
 * A function's environment variables as its synthesized template deploys them, for running its bundle here: literal
 * values as they are, and the references to the stack's resources (the table names) replaced by local values.
 */
export function deployedVariables(
  name: string,
  variables: Readonly<Record<string, unknown>>,
  local: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(variables).map(([key, value]) => {
      const literal = typeof value === 'string' ? value : local[key];
      if (literal === undefined) throw new Error(`${name}: no local value for ${key} (${JSON.stringify(value)})`);
      return [key, literal];
    }),
  );
}
