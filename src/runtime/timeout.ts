/**
 * Waits for a promise at most `ms` milliseconds (real time: used where the runtime must not hang
 * on a handler that never settles). Resolves with its value, or undefined when time ran out;
 * a rejection passes through. The timer is always cleared.
 */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}
