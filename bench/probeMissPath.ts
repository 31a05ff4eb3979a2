/**
 * The claim's and journal's wall time on the store's miss path, phase by phase, for 30 concurrent fresh jobs in one
 * process (no HTTP): before the body (journal read, claim, read under the claim, claim checked, `submitting` synced)
 * and after it (submitted, stored, claim let go). Not part of `npm run bench`; run it in two checkouts to compare:
 * `npx ts-node --transpile-only bench/probeMissPath.ts [rounds, default 12]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openStore } from '../src/store';

const rounds = Number(process.argv[2] ?? 12);
const JOBS = 30;
const dir = mkdtempSync(path.join(tmpdir(), 'flux-probe-miss-'));
const store = openStore({ dir, maxBytes: 1 << 30, ttlMs: 86_400_000 }, { warn: () => undefined });
const start = { jobId: '', apiStyle: 'bfl', baseUrl: 'http://127.0.0.1', model: 'flux-3-image', apiKeyHash: 'h' } as const;

const phases: Record<string, number[]> = {};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function round(r: number): Promise<{ before: number; after: number; cpu: number }> {
	const cpu = process.cpuUsage();
	const t0 = performance.now();
	const held = await Promise.all(
		Array.from({ length: JOBS }, async (_, i) => {
			const key = `probe-${r}-${i}-${Math.random().toString(36).slice(2)}`;
			let t = performance.now();
			const lap = (name: string) => {
				const now = performance.now();
				(phases[name] ??= []).push(now - t);
				t = now;
			};
			await store.journal.read(key);
			lap('read');
			const claim = await store.claims.acquire(key);
			lap('acquire');
			await store.journal.readChecked(key);
			lap('readChecked');
			await store.claims.stillHeld(key);
			lap('stillHeld');
			await store.journal.submitting(key, { ...start, jobId: `job-${key}` } as never);
			lap('submitting');
			(phases.readyAt ??= []).push(performance.now() - t0);
			return { key, claim };
		}),
	);
	const before = performance.now() - t0;
	const t1 = performance.now();
	await Promise.all(
		held.map(async ({ key, claim }) => {
			let t = performance.now();
			const lap = (name: string) => {
				const now = performance.now();
				(phases[name] ??= []).push(now - t);
				t = now;
			};
			await store.journal.submitted(key, { taskId: `task-${key}` });
			lap('submitted');
			await store.journal.stored(key);
			lap('stored');
			await claim.release();
			lap('release');
		}),
	);
	const after = performance.now() - t1;
	const used = process.cpuUsage(cpu);
	return { before, after, cpu: (used.user + used.system) / 1000 };
}

void (async () => {
	await round(-1);
	const runs = [];
	for (let r = 0; r < rounds; r++) runs.push(await round(r));
	const ms = (x: number) => `${x.toFixed(1)} ms`;
	console.log(`30 jobs, ${rounds} rounds, medians: before the body ${ms(median(runs.map((x) => x.before)))}, after it ${ms(median(runs.map((x) => x.after)))}, CPU ${ms(median(runs.map((x) => x.cpu)))} per round`);
	for (const [name, xs] of Object.entries(phases)) console.log(`${name.padEnd(12)} median ${ms(median(xs))}, max ${ms(Math.max(...xs))} (per job)`);
	rmSync(dir, { recursive: true, force: true });
	process.exit(0);
})();
