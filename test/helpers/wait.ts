/**
 * Polling for a condition the test cannot await directly (another instance noticing a write, a
 * database process changing state): `check` every `intervalMs` until it holds or `timeoutMs` has
 * passed, with one last check at the deadline. Answers how long until it held, in ms (0 when it
 * held at once: compare with undefined), or undefined.
 */
export async function timeUntil(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 50): Promise<number | undefined> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started >= timeoutMs) return undefined;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Whether `check` came to hold within `timeoutMs` (see timeUntil). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 50): Promise<boolean> {
  return (await timeUntil(check, timeoutMs, intervalMs)) !== undefined;
}
