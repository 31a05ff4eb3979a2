/**
 * One ioredis client to the shared Redis, and whether it is usable right now. Commands never queue
 * while Redis is away (`enableOfflineQueue: false`): they fail at once, so callers fall back to
 * per-process limits instead of hanging; ioredis keeps reconnecting in the background and `up()`
 * turns true again when Redis answers. The password is handed to ioredis only, never logged.
 */
import { Redis } from 'ioredis';
import { describeRedisTarget, type RedisTarget } from './config';

export interface RedisConnectionEvents {
	/** Redis answered (first time, or again after it was lost). */
	onUp?: () => void;
	/** Redis went away or could not be reached. `why` is secret-free. */
	onDown?: (why: string) => void;
}

/** How long a first connection may take before callers stop waiting for it (ms). */
export const CONNECT_WAIT_MS = 2000;
/**
 * How long `close()` lets a socket end before destroying it (ms). ioredis arms this ref'd timer even for a
 * socket already closed (Redis gone): its 2 s default kept a closing process (and jest) alive for 2 s.
 */
const DISCONNECT_TIMEOUT_MS = 100;
/** Longest pause between reconnection attempts (ms). */
const MAX_RECONNECT_DELAY_MS = 1000;

export class RedisConnection {
	readonly client: Redis;
	readonly where: string;
	private wasUp = false;
	private down = false;
	private readonly createdAt = Date.now();

	constructor(target: RedisTarget, private readonly events: RedisConnectionEvents = {}) {
		this.where = describeRedisTarget(target);
		this.client = new Redis({
			host: target.host,
			port: target.port,
			username: target.username,
			password: target.password,
			db: target.db,
			tls: target.tls ? {} : undefined,
			enableOfflineQueue: false,
			maxRetriesPerRequest: 1,
			connectTimeout: CONNECT_WAIT_MS,
			disconnectTimeout: DISCONNECT_TIMEOUT_MS,
			retryStrategy: (times: number) => Math.min(MAX_RECONNECT_DELAY_MS, 50 * times),
			lazyConnect: false,
		});
		this.client.on('ready', () => this.markUp());
		this.client.on('error', (error: Error) => this.markDown(safeReason(error)));
		this.client.on('close', () => this.markDown('connection closed'));
	}

	/** True while commands can be sent. */
	up(): boolean {
		return this.client.status === 'ready';
	}

	/** True when usable; within CONNECT_WAIT_MS of creation, waits for the first connection still being made. */
	async ready(): Promise<boolean> {
		if (this.up()) return true;
		const waitMs = this.createdAt + CONNECT_WAIT_MS - Date.now();
		if (this.wasUp || waitMs <= 0 || !['connecting', 'connect', 'wait'].includes(this.client.status)) return false;
		this.firstConnect ??= new Promise<boolean>((resolve) => {
			const done = (ok: boolean) => {
				clearTimeout(timer);
				this.client.off('ready', onReady);
				resolve(ok);
			};
			const onReady = () => done(true);
			const timer = setTimeout(() => done(this.up()), waitMs);
			timer.unref();
			this.client.once('ready', onReady);
		});
		return await this.firstConnect;
	}

	/** One wait for the first connection, shared by every caller. */
	private firstConnect?: Promise<boolean>;

	async close(): Promise<void> {
		this.closing = true;
		this.client.disconnect(false);
	}

	private closing = false;

	private markUp(): void {
		const changed = this.down || !this.wasUp;
		this.wasUp = true;
		this.down = false;
		if (changed) this.events.onUp?.();
	}

	private markDown(why: string): void {
		if (this.down || this.closing) return;
		this.down = true;
		this.events.onDown?.(why);
	}
}

/** An ioredis error's code or message, without anything that could carry a password. */
export function safeReason(error: unknown): string {
	const code = (error as { code?: unknown }).code;
	if (typeof code === 'string') return code;
	const message = error instanceof Error ? error.message : String(error);
	return message.replace(/\/\/[^@\s]*@/g, '//***@').slice(0, 200);
}
