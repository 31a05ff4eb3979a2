/**
 * One answer to "is the owner alive?" (unit): this process is; an owner in this PID namespace is judged by its pid
 * and the pid's start time; one in another PID namespace or on another host by its lease only, on a test clock,
 * never by a pid that here may be another process. The spend ledger holds unpriced jobs back by the same answer.
 */
import { readFileSync } from 'node:fs';

import { ownerAlive, processAlive, thisOwner, type ProcessOwner } from '../../src/coordination/ownerLiveness';
import { emptyLedger, SpendLedger, type LedgerState } from '../../src/spend';
import { useTempDir } from '../store/tempStore';

const me = thisOwner();
const T0 = 1_700_000_000_000;
const lease = { seenAt: T0, lapseMs: 20_000 };
/** A pid no process has (pids stay below pid_max). */
const noSuchPid = (): number => Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
/** `me`'s host with another part: [host name, boot id, PID namespace]. */
const elsewhere = (part: number): string => me.host.split('|').map((value, i) => (i === part ? `${value}-other` : value)).join('|');

it('knows this process: its host names the host, boot and PID namespace; its start time is read from /proc', () => {
	expect(me.host.split('|')).toHaveLength(3);
	expect(me.host).toMatch(/\|pid:\[\d+\]$/);
	expect(me.start).toMatch(/^\d+$/);
	expect(thisOwner()).toBe(me);
});

it('a record from this process is alive, however old its lease', () => {
	expect(processAlive(me)).toBe(true);
	expect(ownerAlive(me, lease, T0 + 10 * lease.lapseMs)).toBe(true);
});

it('same PID namespace and a dead pid: dead at once, before its lease lapses', () => {
	const gone: ProcessOwner = { token: 'gone', host: me.host, pid: noSuchPid() };
	expect(processAlive(gone)).toBe(false);
	expect(ownerAlive(gone, lease, T0)).toBe(false);
});

it('same PID namespace and a live pid of another start time (a reused pid): dead', () => {
	const reused: ProcessOwner = { token: 'old-owner', host: me.host, pid: process.pid, start: String(Number(me.start) + 1) };
	expect(processAlive(reused)).toBe(false);
	expect(ownerAlive(reused, lease, T0)).toBe(false);
	// The same pid and start time (another instance of this process's records) is alive, however old its lease.
	expect(ownerAlive({ ...reused, start: me.start }, lease, T0 + 10 * lease.lapseMs)).toBe(true);
});

it.each([
	['another PID namespace (another container on this host)', 2],
	['another boot', 1],
	['another host', 0],
])('%s: alive while its lease is fresh, dead after the lapse, whatever its pid is here', (_where, part) => {
	for (const pid of [process.pid, noSuchPid()]) {
		const owner: ProcessOwner = { token: 'there', host: elsewhere(part), pid, start: me.start };
		expect(processAlive(owner)).toBeUndefined();
		expect(ownerAlive(owner, lease, T0 + lease.lapseMs)).toBe(true);
		expect(ownerAlive(owner, lease, T0 + lease.lapseMs + 1)).toBe(false);
	}
});

it('an unreadable owner is judged by its lease', () => {
	expect(ownerAlive(undefined, lease, T0 + 1)).toBe(true);
	expect(ownerAlive(undefined, lease, T0 + lease.lapseMs + 1)).toBe(false);
});

describe('the spend ledger: an unpriced reservation holds the others back while its owner is alive', () => {
	const temp = useTempDir();
	const ACCOUNT = 'f'.repeat(32);
	const unpriced = (id: string) => ({ id, priceKey: 'flux-3-image:unpriced', limits: { credits: 40 }, blockMs: 60_000 });

	/** A ledger whose one unpriced reservation belongs to `owner` (written as that process would). */
	async function heldBy(owner: ProcessOwner): Promise<SpendLedger> {
		expect(await new SpendLedger({ dir: temp.dir, owner }).reserve(ACCOUNT, unpriced('first'))).toMatchObject({ kind: 'reserved', entry: { owner } });
		return new SpendLedger({ dir: temp.dir });
	}

	it('an owner in another PID namespace, whose pid is no process here: the others wait (it may be paying now)', async () => {
		const ledger = await heldBy({ token: 'container-b', host: elsewhere(2), pid: noSuchPid(), start: '1' });
		expect(await ledger.reserve(ACCOUNT, unpriced('second'))).toMatchObject({ kind: 'wait' });
	});

	it('an owner in this PID namespace whose process is gone: the next goes at once (the dead one still counts)', async () => {
		const ledger = await heldBy({ token: 'killed', host: me.host, pid: noSuchPid() });
		expect(await ledger.reserve(ACCOUNT, unpriced('second'))).toMatchObject({ kind: 'reserved', spent: { jobs: 2 } });
	});

	it('a record written before owners were kept (pid and boot only) is still read, and holds the others back until its time', async () => {
		const ledger = new SpendLedger({ dir: temp.dir });
		const old: LedgerState = { ...emptyLedger(), rev: 1 };
		const entry = { id: 'old', at: Date.now(), boot: 'b', pid: noSuchPid(), credits: null, state: 'reserved', priceKey: 'flux-3-image:unpriced', blocksUntil: Date.now() + 60_000 };
		await ledger.file.locked(ACCOUNT, async (file) => await file.write({ ...old, entries: [entry as LedgerState['entries'][number]] }));
		expect(await ledger.reserve(ACCOUNT, unpriced('second'))).toMatchObject({ kind: 'wait', spent: { jobs: 1 } });
	});
});
