/**
 * Is the owner of a record (a claim, a ledger reservation) alive? One answer for every record: an owner names its
 * process by a random token, its host (host name, boot id and PID namespace), its pid and the pid's start time. An
 * owner in this process is alive; one in this host's PID namespace is alive while a process with its pid and start
 * time runs (signal 0: a slow or stopped process keeps what it holds); one in another PID namespace (another
 * container) or on another host cannot be seen, and is judged by its heartbeat or lease only.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { crc32 } from 'node:zlib';
import { z } from 'zod';

export const processOwnerSchema = z.object({
	/** Random per process: tells this process's records from a dead process's with the same pid. */
	token: z.string(),
	/** Host name, boot id and PID namespace joined: pids are comparable only where all three match. */
	host: z.string(),
	pid: z.number(),
	/** The pid's start time (clock ticks since boot, /proc/<pid>/stat field 22), so a reused pid is not taken for the owner. */
	start: z.string().optional(),
});

export type ProcessOwner = z.infer<typeof processOwnerSchema>;

function readTrimmed(read: () => string): string {
	try {
		return read().trim();
	} catch {
		return '';
	}
}

/** Field 22 of /proc/<pid>/stat (the start time), or undefined where /proc does not show it. */
function processStartTime(pid: number): string | undefined {
	const stat = readTrimmed(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return fields.length > 19 && /^\d+$/.test(fields[19]) ? fields[19] : undefined;
}

let boot: string | null = null;

/** This machine's boot id (Linux: /proc/sys/kernel/random/boot_id), read once; '' where there is none to read. */
export function bootId(): string {
	boot ??= readTrimmed(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
	return boot;
}

let own: ProcessOwner | undefined;

/** This process as an owner (the same for every record it makes). */
export function thisOwner(): ProcessOwner {
	own ??= {
		token: randomUUID(),
		host: [hostname(), bootId(), readTrimmed(() => readlinkSync('/proc/self/ns/pid'))].join('|'),
		pid: process.pid,
		start: processStartTime(process.pid),
	};
	return own;
}

/**
 * Whether `owner`'s process is alive, where it can be seen: true for this process, true or false for one in this
 * host's PID namespace, undefined for one elsewhere (judge it by its lease: ownerAlive).
 */
export function processAlive(owner: ProcessOwner, me: ProcessOwner = thisOwner()): boolean | undefined {
	if (owner.token === me.token) return true;
	if (owner.host !== me.host) return undefined;
	if (!pidAlive(owner.pid)) return false;
	const start = owner.start === undefined ? undefined : processStartTime(owner.pid);
	return start === undefined || start === owner.start; // another start time: the pid was reused
}

/**
 * Whether `owner` is alive: its process where it can be seen, else its lease (alive until `lapseMs` after `seenAt`,
 * the epoch ms of its last heartbeat, or of the record when it has none).
 */
export function ownerAlive(owner: ProcessOwner | undefined, lease: { seenAt: number; lapseMs: number }, now: number, me: ProcessOwner = thisOwner()): boolean {
	return (owner && processAlive(owner, me)) ?? now - lease.seenAt <= lease.lapseMs;
}

/** Whether a process of this PID namespace has the pid `pid` (signal 0; EPERM: it exists, another user's). */
function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as { code?: unknown }).code === 'EPERM'; // ESRCH: no such process
	}
}

/** An owner as a file holds it: its JSON with a checksum, so a changed byte never passes for another owner. */
export function ownerRecord(owner: ProcessOwner): string {
	const json = JSON.stringify({ token: owner.token, host: owner.host, pid: owner.pid, start: owner.start });
	return JSON.stringify({ owner: json, sum: crc32(json) >>> 0 });
}

/** The owner of a record's text, or undefined when it is unreadable (cut short, or changed: its checksum fails). */
export function readOwnerRecord(text: string): ProcessOwner | undefined {
	try {
		const { owner, sum } = JSON.parse(text) as { owner?: unknown; sum?: unknown };
		if (typeof owner !== 'string' || sum !== crc32(owner) >>> 0) return undefined;
		return parseOwner(JSON.parse(owner));
	} catch {
		return undefined;
	}
}

/** An owner read back from a record (file or Redis), or undefined when it is not one. */
export function parseOwner(value: unknown): ProcessOwner | undefined {
	const parsed = processOwnerSchema.safeParse(value);
	return parsed.success ? parsed.data : undefined;
}
