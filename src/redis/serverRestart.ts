/**
 * Whether the Redis server restarted (and so forgot every claim and every ledger it held) since this process
 * last looked: another run_id than last seen, or, at the first look (a process started after the restart, one
 * that never reached the old server), a server up for less than the grace its users give a restart. INFO server
 * is read through the connection's `run` (one bounded command); a server that does not answer says nothing.
 */
import type { Redis } from 'ioredis';

/** What the watch needs of the connection: one bounded command (SharedRedis.run). */
export interface ServerInfoRedis {
	run<T>(command: (client: Redis) => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }>;
}

export interface ServerInfo {
	runId: string;
	/** INFO's `uptime_in_seconds` in ms: at most the real uptime (whole seconds, rounded down). */
	uptimeMs: number;
}

/** The server's run_id and uptime; undefined when it does not answer or its reply lacks them. */
export async function serverInfo(redis: ServerInfoRedis): Promise<ServerInfo | undefined> {
	const info = await redis.run(async (client) => await client.info('server')).catch(() => undefined);
	if (!info?.ok) return undefined;
	const runId = /run_id:([0-9a-f]+)/.exec(info.value)?.[1];
	const uptime = /uptime_in_seconds:(\d+)/.exec(info.value)?.[1];
	return runId === undefined || uptime === undefined ? undefined : { runId, uptimeMs: Number(uptime) * 1000 };
}

export class RestartWatch {
	private runId?: string;

	constructor(
		private readonly redis: ServerInfoRedis,
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
		const info = await serverInfo(this.redis);
		if (info === undefined) return undefined;
		const previous = this.runId;
		this.runId = info.runId;
		if (previous === info.runId) return {};
		if (previous !== undefined) return { restartedAt: this.now() }; // when it was noticed: the whole grace from now
		return info.uptimeMs < this.graceMs ? { restartedAt: this.now() - info.uptimeMs } : {};
	}
}
