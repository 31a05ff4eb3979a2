/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/redis knows nothing of n8n nodes: run() rethrows only what is not Redis's (an abort, a bug) to its caller, unchanged. */
/**
 * One ioredis connection to the shared Redis, with deadlines and a fallback. Every command is bounded
 * (`commandTimeout`, {@link DEFAULT_COMMAND_TIMEOUT_MS}); commands never queue while Redis is away
 * (`enableOfflineQueue: false`), and one left unanswered by a lost connection is not sent again after ioredis
 * reconnects (`autoResendUnfulfilledCommands: false`): its deadline fails it, and its caller has fallen back by
 * then (a claim taken in the folder, spend counted per machine), so a resend would put it into Redis a second
 * time, unowned (a restarted Redis given a claim nobody releases). A command that fails because Redis is gone, silent past the deadline (a
 * stalled or very slow server on an open socket) or refusing the credentials marks Redis not usable: callers
 * then get `{ ok: false }` at once and fall back (per-process limits, the local journal), so no caller waits for
 * a stalled Redis more than once per deadline. A missed deadline is Redis's unless answers were waiting unread:
 * this process's event loop was held up past the deadline, so the timer fired before the socket was read (a busy
 * n8n, not a silent Redis). That is judged after the next read of the socket, before the caller gets its answer:
 * then only the commands whose deadline passed failed. A bounded PING on an unref'd timer probes an outage
 * meanwhile; ioredis reconnects a lost socket by itself. Either makes it usable again. One warning per outage in the
 * log and in {@link SharedRedis.warnings} (the collector's report), which also names an outage for {@link RECENT_OUTAGE_MS}
 * after Redis came back (so a batch that ran partly on per-process limits and the local journal says so). Messages
 * name where Redis was expected (host:port): the password goes to ioredis only, never to a message.
 */
import type { Socket } from 'node:net';

import { Redis } from 'ioredis';

import { redisAddress, type RedisTarget } from '../config';
import { holdLease } from '../coordination/heartbeat';
import type { Answer } from '../coordination/records';

/** Deadline of every command (ms). */
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
/** How often Redis is probed while it is not usable (ms). */
const DEFAULT_PROBE_EVERY_MS = 1000;
/** How long a first connection may take before callers stop waiting for it (ms). */
const CONNECT_WAIT_MS = 2000;
/**
 * How long `close()` lets a socket end before destroying it (ms). ioredis arms this ref'd timer even for a
 * socket already closed (Redis gone): its 2 s default kept a closing process (and jest) alive for 2 s.
 */
const DISCONNECT_TIMEOUT_MS = 100;
/** After how many more deadlines of silence, once an outage was declared, an open connection is replaced by a new one (the probe's, see startProbe). */
const RENEW_SILENT_AFTER_DEADLINES = 3;
/** Longest pause between reconnection attempts (ms). */
const MAX_RECONNECT_DELAY_MS = 1000;
const CONNECTION_MESSAGES = [/connection is closed/i, /stream isn't writeable/i, /max retries per request/i];
const CREDENTIAL_REPLIES = /^(NOAUTH|WRONGPASS)\b|invalid password|invalid username-password/i;
/** How long after Redis returned its absence is still reported. */
const RECENT_OUTAGE_MS = 10 * 60_000;

/** Why Redis is not used: gone, connected but silent past the deadline, or refusing the credentials. */
interface RedisProblem {
	kind: 'unreachable' | 'stalled' | 'credentials';
	/** Secret-free detail, e.g. ECONNREFUSED or "no reply within 2 s". */
	detail: string;
}

const FALLBACK = 'jobs run on per-process limits (COMFLY_IMAGE_CONCURRENCY / COMFLY_VIDEO_CONCURRENCY in each process) and the local journal';

export interface SharedRedisOptions {
	/** Where the one warning per outage goes (the process-wide instance: the package logger). */
	warn?: (message: string) => void;
	/** Where "answers again" goes. */
	info?: (message: string) => void;
	/** Deadline of every command (ms); production uses the default, tests a shorter one. */
	commandTimeoutMs?: number;
	/** Probe interval while Redis is not usable (ms). */
	probeEveryMs?: number;
	/** Clock of the "recent outage" report window. */
	now?: () => number;
}

export class SharedRedis {
	/** The raw client, for libraries that take one (redis-semaphore): call them inside {@link run}. */
	readonly client: Redis;
	/** `host:port` of the target, for messages. */
	readonly where: string;
	/** Set during an outage; the last one and when it ended, for the report's "recent outage" warning. */
	private problem?: RedisProblem;
	private lastOutage?: { problem: RedisProblem; endedAt: number };
	private readonly commandTimeoutMs: number;
	private readonly createdAt = Date.now();
	private readonly upListeners: Array<() => void> = [];
	private wasReady = false;
	private closing = false;
	/** Stops the probe (on the process's heartbeat, which skips a beat while the last PING still waits). */
	private stopProbe?: () => void;
	/** When the probe began, or last replaced a silent connection. */
	private silentSince = 0;
	/** One wait for the first connection, shared by every caller. */
	private firstConnect?: Promise<boolean>;
	/** Set from a missed deadline until it is judged Redis's or this process's, after the next read of the socket (never rejects). */
	private judging?: Promise<void>;

	constructor(
		target: RedisTarget,
		private readonly options: SharedRedisOptions = {},
	) {
		this.where = redisAddress(target);
		this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
		this.client = new Redis({
			host: target.host,
			port: target.port,
			username: target.username,
			password: target.password,
			db: target.db,
			tls: target.tls ? {} : undefined,
			enableOfflineQueue: false,
			autoResendUnfulfilledCommands: false,
			maxRetriesPerRequest: 1,
			commandTimeout: this.commandTimeoutMs,
			connectTimeout: CONNECT_WAIT_MS,
			disconnectTimeout: DISCONNECT_TIMEOUT_MS,
			retryStrategy: (times: number) => Math.min(MAX_RECONNECT_DELAY_MS, 50 * times),
			lazyConnect: false,
		});
		this.client.on('ready', () => this.answered());
		this.client.on('error', (error: unknown) => this.failed(error));
		this.client.on('close', () => this.lost({ kind: 'unreachable', detail: 'connection closed' }));
	}

	/** True while commands may be sent: connected, and not silent past a deadline. */
	usable(): boolean {
		return !this.closing && this.client.status === 'ready' && this.problem === undefined;
	}

	/** {@link usable}; within CONNECT_WAIT_MS of creation, first waits for the first connection being made (until it is up or refused). */
	async ready(): Promise<boolean> {
		if (this.usable()) return true;
		const waitMs = this.createdAt + CONNECT_WAIT_MS - Date.now();
		if (this.closing || this.wasReady || this.problem !== undefined || waitMs <= 0 || !['connecting', 'connect', 'wait'].includes(this.client.status)) return false;
		this.firstConnect ??= new Promise<boolean>((resolve) => {
			// Connected, refused (closed) or the wait is over: whichever comes first.
			const done = () => {
				clearTimeout(timer);
				for (const event of ['ready', 'close', 'error']) this.client.off(event, done);
				resolve(this.usable());
			};
			const timer = setTimeout(done, waitMs).unref();
			for (const event of ['ready', 'close', 'error']) this.client.on(event, done);
		});
		return await this.firstConnect;
	}

	/**
	 * Runs `command` on the client when Redis is usable. Resolves `{ ok: false }` (never rejects, never waits
	 * past a deadline) when Redis is not usable or fails meanwhile, and when Redis answers with an error (a reply
	 * error does not make Redis unusable). Rejects only with errors that are not Redis's (an abort, a bug).
	 */
	async run<T>(command: (client: Redis) => Promise<T>): Promise<Answer<T>> {
		if (!(await this.ready())) return { ok: false, reason: 'Redis is not usable' };
		try {
			return { ok: true, value: await command(this.client) };
		} catch (error) {
			if (classifyRedisError(error) === 'other') throw error;
			this.failed(error);
			await this.judging; // a missed deadline is judged before the caller goes on: an outage is known to it
			return { ok: false, reason: safeReason(error) };
		}
	}

	/** A Lua script through {@link run} (EVAL; keys first, as Redis wants them). */
	async eval(script: string, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<Answer<unknown>> {
		return await this.run(async (client) => await client.eval(script, keys.length, ...keys, ...args));
	}

	/** The report's warnings: one while Redis is not usable, or shortly after it came back. */
	warnings(): string[] {
		if (this.problem !== undefined) return [this.message(this.problem)];
		const last = this.lastOutage;
		if (last !== undefined && (this.options.now ?? Date.now)() - last.endedAt < RECENT_OUTAGE_MS) {
			const why = last.problem.kind === 'credentials' ? 'it refused the credentials' : last.problem.detail;
			return [`Redis at ${this.where} was unreachable for a while (${why}): jobs meanwhile ran on per-process limits; it is back and the limit is shared again.`];
		}
		return [];
	}

	/** Calls `listener` each time Redis becomes usable again after an outage. */
	onUp(listener: () => void): void {
		this.upListeners.push(listener);
	}

	async close(): Promise<void> {
		this.closing = true;
		this.endProbe();
		this.client.disconnect(false);
	}

	private failed(error: unknown): void {
		const kind = classifyRedisError(error);
		if (kind === 'reply' || kind === 'other') return;
		if (kind === 'stalled') this.judgeMissedDeadline();
		else this.lost({ kind, detail: safeReason(error) });
	}

	/**
	 * A command missed its deadline: Redis stalled, or this process's event loop was held up past the deadline (its
	 * timers then fire before the replies waiting in the socket are read). Judged in a setImmediate, which runs after
	 * the next poll phase has read the socket: ioredis drops the oldest command waiting for a reply when that reply is
	 * read (`commandQueue`). Still the same one: Redis answered nothing, an outage. Another: the answers were there,
	 * the lateness was this process's; the commands whose deadline passed failed, nothing else changes. Two narrow
	 * cases are judged late or early, never unsafely (callers fall back either way): Redis answered the oldest
	 * command, then froze, while this process was held up (the outage is then declared at the next missed deadline);
	 * a reply larger than one read (this package's replies are small) is not yet dropped, so the outage is declared.
	 */
	private judgeMissedDeadline(): void {
		if (this.problem !== undefined || this.judging !== undefined || this.closing) return;
		const oldest = this.client.commandQueue.peekFront();
		this.judging = new Promise<void>((resolve) => {
			setImmediate(() => {
				this.judging = undefined;
				try {
					if (oldest !== undefined && this.client.commandQueue.peekFront() === oldest) this.lost({ kind: 'stalled', detail: `no reply within ${this.commandTimeoutMs / 1000} s` });
				} finally {
					resolve(); // a throwing warn() must not leave the callers waiting
				}
			});
		});
	}

	/** Redis cannot be used: one warning per outage. */
	private lost(problem: RedisProblem): void {
		if (this.closing) return;
		if (this.problem === undefined) {
			this.problem = problem;
			this.options.warn?.(this.message(problem));
		}
		this.startProbe();
	}

	private answered(): void {
		this.wasReady = true;
		this.endProbe();
		if (this.problem === undefined) return;
		this.lastOutage = { problem: this.problem, endedAt: (this.options.now ?? Date.now)() };
		this.problem = undefined;
		this.options.info?.(`Redis at ${this.where} answers again: the account-wide limit and the journal are shared across processes again.`);
		for (const listener of this.upListeners) listener();
	}

	private message(problem: RedisProblem): string {
		if (problem.kind === 'credentials') {
			return `Redis at ${this.where} refused the credentials: check the password in COMFLY_REDIS_URL (or QUEUE_BULL_REDIS_PASSWORD); meanwhile ${FALLBACK}.`;
		}
		const state = problem.kind === 'stalled' ? 'stopped answering' : 'is unreachable';
		return `Redis at ${this.where} ${state} (${problem.detail}): ${FALLBACK} until it answers again; nothing is lost or paid twice.`;
	}

	/**
	 * A bounded PING on the open connection (a lost socket is ioredis's to reconnect: its `ready` ends the outage).
	 * A connection still silent {@link RENEW_SILENT_AFTER_DEADLINES} deadlines after the outage was declared is replaced
	 * (at the first failed PING past that; see {@link dropSilentConnection}):
	 * its path may have vanished without a FIN or RST (Redis's host or container gone, a partition), and TCP gives up
	 * on such a socket only after about 15 minutes of retransmissions; a new connection reaches a Redis that is back
	 * at the address at once. A Redis that is merely stalled gets new connections too: ioredis's ready check on each
	 * misses its deadline and ioredis replaces it again, one every few seconds, until Redis runs and answers one.
	 */
	private startProbe(): void {
		if (this.stopProbe !== undefined || this.closing) return;
		this.silentSince = Date.now();
		this.stopProbe = holdLease(async () => {
			if (this.closing || this.client.status !== 'ready') return;
			const answered = await this.client.ping().then(() => true, () => false);
			if (answered) return this.answered();
			if (this.problem?.kind !== 'stalled' || this.closing || this.client.status !== 'ready') return;
			if (Date.now() - this.silentSince < RENEW_SILENT_AFTER_DEADLINES * this.commandTimeoutMs) return;
			this.silentSince = Date.now();
			this.dropSilentConnection();
		}, this.options.probeEveryMs ?? DEFAULT_PROBE_EVERY_MS);
	}

	/**
	 * Closes the silent connection with a reset, so what it has not delivered (the commands whose deadline passed) is
	 * dropped, not retransmitted once a partition heals, after the replays the new connection sends meanwhile (their
	 * order is the replay queue's promise); ioredis sees the close and reconnects. Node's `resetAndDestroy()` throws
	 * for a TLS socket: it is ended instead, so over TLS a timed-out command may still arrive after a healed partition.
	 */
	private dropSilentConnection(): void {
		const stream = this.client.stream as Socket | undefined;
		try {
			if (stream !== undefined && !stream.destroyed) return void stream.resetAndDestroy();
		} catch {
			// not a plain TCP socket (TLS): ended below
		}
		this.client.disconnect(true);
	}

	private endProbe(): void {
		this.stopProbe?.();
		this.stopProbe = undefined;
	}
}

/**
 * What an ioredis error means: Redis gone (`unreachable`), connected but not answering within the deadline
 * (`stalled`), refusing the credentials (`credentials`), answering a command with an error (`reply`: Redis works,
 * the command did not), or not a Redis error at all (`other`: a bug or an abort, for the caller). Classified by
 * value (name, code, message), not by class: Node's socket errors may come from another realm.
 */
function classifyRedisError(error: unknown): 'unreachable' | 'stalled' | 'credentials' | 'reply' | 'other' {
	if (typeof error !== 'object' || error === null) return 'other';
	const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
	if (typeof message !== 'string') return 'other';
	if (message === 'Command timed out') return 'stalled'; // ioredis's message: no reply within `commandTimeout`
	if (name === 'ReplyError') return CREDENTIAL_REPLIES.test(message) ? 'credentials' : 'reply';
	if (name === 'MaxRetriesPerRequestError') return 'unreachable';
	if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return 'unreachable';
	return CONNECTION_MESSAGES.some((re) => re.test(message)) ? 'unreachable' : 'other';
}

/** An ioredis error's code or message, without anything that could carry a password. */
function safeReason(error: unknown): string {
	const { code, message } = error as { code?: unknown; message?: unknown };
	if (typeof code === 'string') return code;
	return (typeof message === 'string' ? message : String(error)).replace(/\/\/[^@\s]*@/g, '//***@').slice(0, 200);
}
