/**
 * Whether the shared (Redis) limit is in force, and the warning when it was not: while Redis is away,
 * and for `recentMs` after it came back (so a batch that ran partly on per-process limits says so in its
 * report). The warning names where Redis was expected (host:port/db), never a password.
 */

/** How long after Redis returned its absence is still reported. */
export const RECENT_OUTAGE_MS = 10 * 60_000;

export class SharedLimitHealth {
	private downSince?: number;
	private lastOutageEnd?: number;
	private reason = '';

	constructor(
		private readonly where: string,
		private readonly warn: (message: string) => void,
		private readonly info: (message: string) => void,
		private readonly now: () => number = Date.now,
		private readonly recentMs = RECENT_OUTAGE_MS,
	) {}

	/** Redis could not be used; warns once per outage. */
	lost(why: string): void {
		if (this.downSince !== undefined) return;
		this.downSince = this.now();
		this.reason = why;
		this.warn(this.message());
	}

	/** Redis answers again: the shared limit is back. */
	restored(): void {
		if (this.downSince === undefined) return;
		this.downSince = undefined;
		this.lastOutageEnd = this.now();
		this.info(`Redis at ${this.where} is reachable again: the account-wide limit is shared across processes again.`);
	}

	shared(): boolean {
		return this.downSince === undefined;
	}

	/** The report's warnings: one while Redis is away or shortly after. */
	warnings(): string[] {
		if (this.downSince !== undefined) return [this.message()];
		if (this.lastOutageEnd !== undefined && this.now() - this.lastOutageEnd < this.recentMs) {
			return [`Redis at ${this.where} was unreachable for a while (${this.reason}): jobs meanwhile ran on per-process limits; it is back and the limit is shared again.`];
		}
		return [];
	}

	private message(): string {
		return `Redis at ${this.where} is unreachable (${this.reason}): jobs run on per-process limits (COMFLY_IMAGE_CONCURRENCY / COMFLY_VIDEO_CONCURRENCY in each process) until it returns; nothing is lost or paid twice.`;
	}
}
