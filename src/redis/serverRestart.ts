/**
 * Whether the Redis server restarted (and so forgot every claim and every ledger it held) since this process
 * last looked: another run_id than last seen, or, at the first look (a process started after the restart, one
 * that never reached the old server), a server up for less than the grace its users give a restart. INFO server
 * is read through the connection's `run` (one bounded command); a server that does not answer says nothing.
 */
import type { SharedRedis } from './sharedRedis';

export class RestartWatch {
	private runId?: string;

	constructor(
		private readonly redis: Pick<SharedRedis, 'run'>,
		/** A server up for less than this at the first look counts as just restarted. */
		private readonly graceMs: number,
		private readonly now: () => number = Date.now,
	) {}

	/**
	 * Looks at the server: `{ restartedAt }` (this clock; never earlier than the real start, so a grace counted from it
	 * is never cut short) when it restarted since the last look or is a fresh server at the first; `{}` when it did not;
	 * undefined when it did not answer (look again later).
	 */
	async check(): Promise<{ restartedAt?: number } | undefined> {
		const info = await this.redis.run(async (client) => await client.info('server')).catch(() => undefined);
		const runId = info?.ok ? /run_id:([0-9a-f]+)/.exec(info.value)?.[1] : undefined;
		const uptime = info?.ok ? /uptime_in_seconds:(\d+)/.exec(info.value)?.[1] : undefined;
		if (runId === undefined || uptime === undefined) return undefined;
		const previous = this.runId;
		this.runId = runId;
		if (previous === runId) return {};
		if (previous !== undefined) return { restartedAt: this.now() }; // when it was noticed: the whole grace from now
		// INFO's whole seconds, rounded down: the start it gives is never earlier than the real one.
		return Number(uptime) * 1000 < this.graceMs ? { restartedAt: this.now() - Number(uptime) * 1000 } : {};
	}
}
