import { SNAPSHOT_KINDS } from '../../src/sdk/snapshot.ts';

/**
 * Config overrides giving every poller source a schedule that fires only on 1 January ("every 5 s"
 * then): the real clock never fires one during a test, and tickNow with an instant of that day has
 * predictable slots. Built from every source kind, so a source added later is quiet too (a source
 * left on its default schedule fired during tests whose clock crossed its second).
 */
export const QUIET_POLLERS: Readonly<Record<string, string>> = Object.fromEntries(SNAPSHOT_KINDS.map((kind) => [`pollers.${kind}.cron`, '*/5 * * 1 1 *']));
