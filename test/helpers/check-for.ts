/**
 * Polls `fn` until it returns a truthy value (or stops throwing), instead of fixed sleeps.
 */
export async function checkFor<T>(fn: () => T | Promise<T>, timeoutMs = 5_000, intervalMs = 5): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`checkFor: condition not met within ${timeoutMs} ms${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
