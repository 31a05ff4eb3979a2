/**
 * Who holds a claim: this process (a random token), its machine, its pid and the pid's start time. A claim of
 * an owner on this machine (same host name, boot and pid namespace) can be judged at once: its process is alive
 * (the claim stands, however long ago it was touched: a slow or stopped n8n keeps its jobs) or gone (the claim is
 * taken over now, not after a lapse). An owner elsewhere can only be judged by its heartbeat.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { crc32 } from 'node:zlib';

export interface ClaimOwner {
	/** Random per process: tells this process's claims from a dead process's with the same pid. */
	token: string;
	/** Host name, boot id and pid namespace: pids are comparable only where all three match. */
	host: string;
	pid: number;
	/** The pid's start time (Linux clock ticks since boot), so a reused pid is not mistaken for the owner. */
	start?: string;
}

function readTrimmed(read: () => string): string {
	try {
		return read().trim();
	} catch {
		return '';
	}
}

/** Field 22 of /proc/<pid>/stat (the start time), or undefined where /proc is not there. */
export function processStartTime(pid: number): string | undefined {
	const stat = readTrimmed(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return fields.length > 19 && /^\d+$/.test(fields[19]) ? fields[19] : undefined;
}

let own: ClaimOwner | undefined;

/** This process as a claim owner (the same for every claim it takes). */
export function thisOwner(): ClaimOwner {
	own ??= {
		token: randomUUID(),
		host: [hostname(), readTrimmed(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')), readTrimmed(() => readlinkSync('/proc/self/ns/pid'))].join('|'),
		pid: process.pid,
		start: processStartTime(process.pid),
	};
	return own;
}

/** The owner as a claim file holds it: its JSON with a checksum, so a changed byte never passes for another owner. */
export function ownerRecord(owner: ClaimOwner): string {
	const json = JSON.stringify({ token: owner.token, host: owner.host, pid: owner.pid, start: owner.start });
	return JSON.stringify({ owner: json, sum: crc32(json) >>> 0 });
}

/** The owner of a claim file's text, or undefined when it is unreadable (cut short, or changed: its checksum fails). */
export function readOwnerRecord(text: string): ClaimOwner | undefined {
	try {
		const { owner, sum } = JSON.parse(text) as { owner?: unknown; sum?: unknown };
		if (typeof owner !== 'string' || sum !== crc32(owner) >>> 0) return undefined;
		return parseOwner(JSON.parse(owner));
	} catch {
		return undefined;
	}
}

/** An owner read back from a claim (file or Redis), or undefined when it is not one. */
export function parseOwner(value: unknown): ClaimOwner | undefined {
	const o = value as Partial<ClaimOwner> | null;
	if (!o || typeof o.token !== 'string' || typeof o.host !== 'string' || typeof o.pid !== 'number') return undefined;
	return { token: o.token, host: o.host, pid: o.pid, start: typeof o.start === 'string' ? o.start : undefined };
}

/**
 * Whether `owner`'s process is alive: true or false for an owner on this machine (this process: its token),
 * undefined for one elsewhere (judge it by its heartbeat).
 */
export function ownerAlive(owner: ClaimOwner, me: ClaimOwner = thisOwner()): boolean | undefined {
	if (owner.token === me.token) return true;
	if (owner.host !== me.host) return undefined;
	if (!pidAlive(owner.pid)) return false;
	const start = owner.start === undefined ? undefined : processStartTime(owner.pid);
	return start === undefined || start === owner.start; // another start time: the pid was reused
}

/** Whether a process of this machine has the pid `pid` (signal 0; EPERM: it exists, another user's). */
export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as { code?: unknown }).code === 'EPERM'; // ESRCH: no such process
	}
}
