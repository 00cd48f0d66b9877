/**
 * `work`'s outcome, or `onTimeout()`'s once `ms` pass first: its value answers, what it throws
 * rejects. The timer is cleared as soon as either side settles, so a bounded call leaves nothing
 * pending behind it. The work itself is abandoned, not cancelled; its late rejection is handled
 * here (by the race), never reported as unhandled.
 *
 * @example
 *   const answers = await withTimeout(redis.ping().then(() => true, () => false), 2_000, () => false);
 */
export async function withTimeout<T, F = never>(work: Promise<T>, ms: number, onTimeout: () => F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<F>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error as Error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
