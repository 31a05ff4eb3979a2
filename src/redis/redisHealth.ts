/**
 * Whether the shared Redis is in use, and the warning when it is not: one log line per outage, and the report's
 * warning while Redis is away and for `recentMs` after it came back (so a batch that ran partly on per-process
 * limits and the local journal says so in its report). Messages name where Redis was expected (host:port),
 * never a password or a URL.
 */

/** How long after Redis returned its absence is still reported. */
export const RECENT_OUTAGE_MS = 10 * 60_000;

/** Why Redis is not used: gone, connected but silent past the deadline, or refusing the credentials. */
export interface RedisProblem {
	kind: 'unreachable' | 'stalled' | 'credentials';
	/** Secret-free detail, e.g. ECONNREFUSED or "no reply within 2 s". */
	detail: string;
}

const FALLBACK = 'jobs run on per-process limits (COMFLY_IMAGE_CONCURRENCY / COMFLY_VIDEO_CONCURRENCY in each process) and the local journal';

export class RedisHealth {
	private problem?: RedisProblem;
	private lastProblem?: RedisProblem;
	private lastOutageEnd?: number;

	constructor(
		private readonly where: string,
		private readonly warn: (message: string) => void,
		private readonly info: (message: string) => void,
		private readonly now: () => number = Date.now,
		private readonly recentMs = RECENT_OUTAGE_MS,
	) {}

	/** Redis cannot be used; warns once per outage. True when this started the outage. */
	lost(problem: RedisProblem): boolean {
		if (this.problem !== undefined) return false;
		this.problem = problem;
		this.lastProblem = problem;
		this.warn(this.message(problem));
		return true;
	}

	/** Redis answers again. True when this ended an outage. */
	restored(): boolean {
		if (this.problem === undefined) return false;
		this.problem = undefined;
		this.lastOutageEnd = this.now();
		this.info(`Redis at ${this.where} answers again: the account-wide limit and the journal are shared across processes again.`);
		return true;
	}

	/** False during an outage. */
	ok(): boolean {
		return this.problem === undefined;
	}

	/** The report's warnings: one while Redis is away or shortly after. */
	warnings(): string[] {
		if (this.problem !== undefined) return [this.message(this.problem)];
		if (this.lastProblem !== undefined && this.lastOutageEnd !== undefined && this.now() - this.lastOutageEnd < this.recentMs) {
			const why = this.lastProblem.kind === 'credentials' ? 'it refused the credentials' : this.lastProblem.detail;
			return [`Redis at ${this.where} was unreachable for a while (${why}): jobs meanwhile ran on per-process limits; it is back and the limit is shared again.`];
		}
		return [];
	}

	private message(problem: RedisProblem): string {
		switch (problem.kind) {
			case 'credentials':
				return `Redis at ${this.where} refused the credentials: check the password in COMFLY_REDIS_URL (or QUEUE_BULL_REDIS_PASSWORD); meanwhile ${FALLBACK}.`;
			case 'stalled':
				return `Redis at ${this.where} stopped answering (${problem.detail}): ${FALLBACK} until it answers again; nothing is lost or paid twice.`;
			case 'unreachable':
				return `Redis at ${this.where} is unreachable (${problem.detail}): ${FALLBACK} until it answers again; nothing is lost or paid twice.`;
		}
	}
}
