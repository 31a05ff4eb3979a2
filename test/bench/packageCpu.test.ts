/**
 * The package-CPU scenario's figures (bench/scenarios/packageCpu.ts, bench/cpuProfiles.ts): a profile on disk read
 * over the batches' epoch-ms windows through the run's monotonic offset; the package's own and incl. CPU per job as
 * shares of the busy samples × the OS's count ÷ the jobs; and no figure (an error that says why) when the profile
 * did not cover the batches, saw none of the package's code, or the process's CPU was not read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { CpuProfile } from '../../bench/cpuAttribution';
import { attributeTarget, type Target } from '../../bench/cpuProfiles';
import { packageCpuOf } from '../../bench/scenarios/packageCpu';

const PKG = '/home/u/.n8n/nodes/node_modules/n8n-nodes-flux-concurrent/dist';
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0 });

/** One sample a ms, the first at 1,000 µs, the last at 12,000 (its time ends there): idle, the package's journal (own), a Node fs call below it (incl.), n8n's database. */
function profile(): CpuProfile {
	const nodes = [
		{ id: 1, callFrame: frame('(root)', ''), children: [2, 3, 5] },
		{ id: 2, callFrame: frame('(idle)', '') },
		{ id: 3, callFrame: frame('appendOnce', `file://${PKG}/src/store/journalLog.js`), children: [4] },
		{ id: 4, callFrame: frame('write', 'node:internal/fs/promises') },
		{ id: 5, callFrame: frame('runQuery', 'file:///x/node_modules/@n8n/typeorm/dist/driver/sqlite-pooled/SqliteLibrary.js') },
	];
	const samples = [2, 2, 3, 3, 4, 4, 4, 4, 5, 5, 2, 2];
	return { nodes, startTime: 0, endTime: 12_000, samples, timeDeltas: samples.map(() => 1000) };
}

describe('package CPU per job', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(os.tmpdir(), 'package-cpu-test-'));
		writeFileSync(path.join(dir, 'CPU.20261207.142354.4242.0.001.cpuprofile'), JSON.stringify(profile()));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	// The batch ran from epoch 5,000,000 ms to 5,000,010 ms; the profile's clock read 2,000 µs at its start.
	const offsetUs = 2000 - 5_000_000 * 1000;
	const target = (over: Partial<Target> = {}): Target => ({ name: 'n8n 2.0.3', profileDir: dir, windows: [[5_000_000, 5_000_010]], jobs: 2, cpuMs: [16], runs: 'dist', nodeVersion: '20', ...over });

	it('reads the profile over the batches through the offset, and scales the package’s shares of the busy samples to the OS count', () => {
		const { attribution } = attributeTarget(target(), offsetUs);
		expect(attribution.sampledUs).toBe(10_000); // the samples at 2,000 … 11,000 µs (the one at 1,000 is outside)
		expect(attribution.own.journal).toBe(2000);
		expect(attribution.incl.journal).toBe(6000);
		// busy: 8 ms of 10 (2 idle); the OS counted 16 ms for 2 jobs: own 2/8 × 16 / 2, incl. 6/8 × 16 / 2
		expect(packageCpuOf('2.0.3', target(), attribution)).toEqual({ target: '2.0.3', measuredBatches: 1, jobs: 2, ownMs: 2, inclMs: 6, processMs: 8, sampledShare: 1 });
	});

	it('gives no figure, and says why, when the profile missed the batches, the package, or the process CPU', () => {
		const late = target({ windows: [[5_000_005, 5_000_025]] }); // 7,000 … 27,000 µs: the profile ends 5 ms into this 20 ms batch
		expect(packageCpuOf('2.0.3', late, attributeTarget(late, offsetUs).attribution).error).toBe('the profile covers 25 % of the batches (at least 90 % needed)');
		const noPackage = target({ windows: [[5_000_007, 5_000_010]] }); // 9,000 … 12,000 µs: n8n's database and idle only
		expect(packageCpuOf('2.0.3', noPackage, attributeTarget(noPackage, offsetUs).attribution).error).toMatch(/^no sample in the batches ran the package's code/);
		const unread = target({ cpuMs: [NaN] });
		expect(packageCpuOf('2.0.3', unread, attributeTarget(unread, offsetUs).attribution).error).toBe("the process's CPU was not read");
	});
});
