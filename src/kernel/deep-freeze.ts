/**
 * Freezes an object graph in place. Snapshots are shared by every decision (and by the executor's
 * mark price) in a process: a strategy that tried to change one fails alone (strict-mode
 * TypeError) instead of corrupting the next decision's world.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
