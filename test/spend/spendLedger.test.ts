/**
 * The spend ledger on the store folder's file (no Redis), written and its waiters woken only when a change changed
 * something: a refused reservation, a job waiting for another's price and a refund of nothing leave the file as it
 * was (no rewrite, no flush) and wake no other waiting job, so a job looking again five times a second while it
 * waits costs no disk writes, and two waiting jobs do not wake each other in a loop.
 */
import { promises as fs, readFileSync, renameSync, writeFileSync } from 'node:fs';

import { ownerRecord, thisOwner } from '../../src/coordination/ownerLiveness';

import { LedgerUnusableError, SpendLedger, type SpendLimits } from '../../src/spend';
import { useTempDir } from '../store/tempStore';

const temp = useTempDir();

const ACCOUNT = 'e'.repeat(32);
let n = 0;
const request = (limits: SpendLimits, listPrice?: number) => ({ id: `job-${++n}`, priceKey: 'flux-3-image:file', listPrice, limits, blockMs: 60_000 });

/**
 * How many times the account's ledger file was written: each write is a new file renamed over the old one (the
 * rename still happens, the spy only counts it; an inode or mtime is no proof: a freed inode is reused at once).
 */
function writes(ledger: SpendLedger): () => number {
	const rename = jest.spyOn(fs, 'rename');
	return () => rename.mock.calls.filter(([, to]) => to === ledger.file.fileOf(ACCOUNT)).length;
}
afterEach(() => jest.restoreAllMocks());

it('a refused reservation and a refund of nothing do not rewrite the ledger file; a granted one does', async () => {
	const ledger = new SpendLedger({ dir: temp.dir });
	const written = writes(ledger);
	expect(await ledger.reserve(ACCOUNT, request({ jobs: 1 }, 4))).toMatchObject({ kind: 'reserved' });
	expect(written()).toBe(1);

	expect(await ledger.reserve(ACCOUNT, request({ jobs: 1 }, 4))).toMatchObject({ kind: 'refused', limit: 'jobs' });
	await ledger.refund(ACCOUNT, 'never-reserved');
	expect(written()).toBe(1);

	expect(await ledger.reserve(ACCOUNT, request({ jobs: 2 }, 4))).toMatchObject({ kind: 'reserved' });
	expect(written()).toBe(2);
	expect((await ledger.file.read(ACCOUNT)).entries).toHaveLength(2);
});

it('a job waiting for another unpriced job does not rewrite the ledger file each time it looks', async () => {
	const ledger = new SpendLedger({ dir: temp.dir });
	const written = writes(ledger);
	expect(await ledger.reserve(ACCOUNT, request({ credits: 40 }))).toMatchObject({ kind: 'reserved', entry: { credits: null } });
	for (let look = 0; look < 3; look++) expect(await ledger.reserve(ACCOUNT, request({ credits: 40 }))).toMatchObject({ kind: 'wait' });
	expect(written()).toBe(1);
});

it('a look that changes nothing wakes no waiting job; a price told does', async () => {
	const ledger = new SpendLedger({ dir: temp.dir });
	const first = await ledger.reserve(ACCOUNT, request({ credits: 40 }));
	if (first.kind !== 'reserved') throw new Error('unreachable');
	const stop = new AbortController();
	let woken = false;
	const waiting = ledger.changed(ACCOUNT, 60_000, stop.signal).then(() => (woken = true));
	try {
		expect(await ledger.reserve(ACCOUNT, request({ credits: 40 }))).toMatchObject({ kind: 'wait' });
		await ledger.refund(ACCOUNT, 'never-reserved');
		await new Promise(setImmediate); // a wake-up (emitted before either call resolved) would have run by now
		expect(woken).toBe(false);

		await ledger.settle(ACCOUNT, { id: first.entry.id, cost: 4, final: false, known: first.entry });
		await waiting;
		expect(woken).toBe(true);
	} finally {
		stop.abort();
	}
});

it('a reservation whose ledger lock another owner took over before it landed is refused and writes nothing (fails closed)', async () => {
	const ledger = new SpendLedger({ dir: temp.dir });
	expect(await ledger.reserve(ACCOUNT, request({ jobs: 2 }, 4))).toMatchObject({ kind: 'reserved' });
	const before = readFileSync(ledger.file.fileOf(ACCOUNT), 'utf8');
	const lock = `${ledger.file.fileOf(ACCOUNT)}.lock`;
	const writeFile = fs.writeFile.bind(fs);
	jest.spyOn(fs, 'writeFile').mockImplementation(async (...args: Parameters<typeof fs.writeFile>) => {
		if (String(args[0]).endsWith('.tmp')) {
			// The holder is paused while writing: another owner takes the lock over.
			writeFileSync(`${lock}.new`, ownerRecord({ ...thisOwner(), token: 'other' }));
			renameSync(`${lock}.new`, lock);
		}
		return await writeFile(...args);
	});
	const refused = ledger.reserve(ACCOUNT, request({ jobs: 2 }, 4));
	await expect(refused).rejects.toBeInstanceOf(LedgerUnusableError);
	await expect(refused).rejects.toMatchObject({ lockBusy: true });
	expect(readFileSync(ledger.file.fileOf(ACCOUNT), 'utf8')).toBe(before);
});

it('a ledger file holding a negative credit is damaged: the next reservation fails closed instead of spending past the limit', async () => {
	const ledger = new SpendLedger({ dir: temp.dir });
	expect(await ledger.reserve(ACCOUNT, request({ credits: 10 }, 4))).toMatchObject({ kind: 'reserved' });
	const state = await ledger.file.read(ACCOUNT);
	// An entry of -100 credits would make room for 25 more jobs at 4 under a limit of 10.
	const forged = { ...state, entries: [...state.entries, { ...state.entries[0], id: 'forged', credits: -100 }] };
	await fs.writeFile(ledger.file.fileOf(ACCOUNT), JSON.stringify(forged));
	await expect(ledger.reserve(ACCOUNT, request({ credits: 10 }, 4))).rejects.toThrow(/damaged/);
});
