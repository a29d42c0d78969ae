/**
 * Runs `fn`, and again (at most `times` in all) when it throws an error `transient` accepts: for a
 * test's own set-up races (a port the OS handed out twice, a write cut by a server that already
 * answered), never for what the test asserts.
 */
export async function withRetries<T>(
  times: number,
  transient: (err: unknown) => boolean,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= times || !transient(err)) throw err;
    }
  }
}
