/**
 * The default branch of an exhaustive `switch` over a discriminated union: it does not compile
 * while a case is missing, and throws (inside the actor: a crash, never across its boundary) if
 * a value the types rule out turns up anyway.
 */
export function assertNever(x: never, what = 'value'): never {
  throw new Error(`unexpected ${what} ${JSON.stringify(x)}`);
}
