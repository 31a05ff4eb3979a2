/**
 * The package's own CPU per job (issue 34: "a 1 MiB image job costs at most 10 ms of the package's own CPU, the
 * profile's attribution"): the batches of bench/cpuProfile.ts (30 × 1 MiB, jobs of 1.5–3.5 s, Cache Refresh, one
 * warm-up batch first) in a fresh engine worker and in a real `n8n start` of each version the real-n8n scenario
 * ran, each process under `node --cpu-prof`; each profile attributed over the measured batches (bench/cpuProfiles.ts).
 * It runs after the real-n8n scenario, whose build of dist/ the n8n homes install, and apart from it: the profiler
 * slows the batches it samples, so its batches are not the ones the makespan goals read.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describeMachine } from '../benchResults';
import { attributeTarget, monotonicOffsetUs, packageCpuPerJob, profileEngine, profileN8n, writeMeta, type ProfileBatches, type Target } from '../cpuProfiles';
import { fixed, log } from '../format';
import { startProfileSim } from '../profileBatches';
import type { Bench } from '../session';

/** One profiled process: the package's CPU per job (own frames; with the n8n/Node/dependency frames below them) and the process's. */
export interface PackageCpuTarget {
	/** 'engine', or the n8n version. */
	target: string;
	batches: number;
	jobs: number;
	ownMs: number;
	inclMs: number;
	processMs: number;
	error?: string;
}

export interface PackageCpuScenario {
	size: '1m';
	batches: number;
	targets: PackageCpuTarget[];
	/** Where the profiles are, with a meta.json: `npx ts-node --transpile-only bench/cpuProfile.ts --analyse=DIR` prints their full tables. */
	profilesDir: string;
	durationMs: number;
}

export async function runPackageCpu(bench: Bench, versions: readonly string[]): Promise<PackageCpuScenario> {
	const startedAt = Date.now();
	const batches: ProfileBatches = { batches: bench.config.quick ? 1 : 3, size: '1m', cache: 'refresh' };
	const profilesDir = path.join(os.tmpdir(), `flux-bench-package-cpu-${new Date().toISOString().replace(/[:.]/g, '-')}`);
	const offsetUs = monotonicOffsetUs();
	const sized = await startProfileSim();
	const targets: PackageCpuTarget[] = [];
	const profiled: Target[] = [];
	try {
		for (const name of ['engine', ...versions]) {
			const profileDir = path.join(profilesDir, name === 'engine' ? 'engine' : `n8n-${name}`);
			mkdirSync(profileDir, { recursive: true });
			log(`package CPU: profiling ${name === 'engine' ? 'a fresh engine worker' : `n8n ${name}`} (${batches.batches} batch(es) of 30 × 1 MiB after a warm-up) …`);
			try {
				const target = name === 'engine' ? await profileEngine(sized, batches, profileDir) : await profileN8n(name, sized, batches, profileDir);
				profiled.push(target);
				const perJob = packageCpuPerJob(target, attributeTarget(target, offsetUs).attribution);
				targets.push({ target: name, batches: target.windows.length, jobs: target.jobs, ...perJob });
				log(`package CPU, ${name}: own ${fixed(perJob.ownMs, 2)} ms per job, incl. its n8n/Node calls ${fixed(perJob.inclMs, 2)}, the process ${fixed(perJob.processMs, 2)}`);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				targets.push({ target: name, batches: 0, jobs: 0, ownMs: NaN, inclMs: NaN, processMs: NaN, error: message.slice(0, 2000) });
				log(`package CPU, ${name}: FAILED: ${message.slice(0, 500)}`);
			}
			sized.reset();
		}
	} finally {
		await sized.sim.close();
	}
	const m = describeMachine();
	const machine = `machine: ${m.cpuModel}, ${m.cores} cores, Node ${m.node}; load average ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' / ')}`;
	const command = `npm run bench (the package-CPU scenario: ${['engine', ...versions].join(', ')})`;
	writeMeta(profilesDir, { machine, command, size: batches.size, batches: batches.batches, offsetUs, targets: profiled });
	log(`package CPU: profiles in ${profilesDir} (their tables: npx ts-node --transpile-only bench/cpuProfile.ts --analyse=${profilesDir})`);
	return { size: '1m', batches: batches.batches, targets, profilesDir, durationMs: Date.now() - startedAt };
}
