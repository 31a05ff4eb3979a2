/**
 * The package's own CPU per job (issue 34: "a 1 MiB image job costs at most 10 ms of the package's own CPU (the
 * profile's attribution)"): the batches of bench/cpuProfile.ts (30 × 1 MiB, jobs of 1.5–3.5 s, Cache Refresh, one
 * warm-up batch first) in a fresh engine worker and in a real `n8n start` of each version that started in the
 * real-n8n scenario, each process under `node --cpu-prof`; each profile attributed over the measured batches
 * (bench/cpuProfiles.ts). It runs after the real-n8n scenario, whose build of dist/ the n8n homes install, and apart
 * from it: the profiler slows the batches it samples, so its batches are not the ones the makespan goals read. The
 * profiles and a meta.json go to one temp folder, emptied at the start of each run (`bench/cpuProfile.ts
 * --analyse=DIR` prints their full tables).
 */
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describeMachine, machineLine } from '../benchResults';
import { AREAS, type Attribution } from '../cpuAttribution';
import { attributeTarget, monotonicOffsetUs, packageCpuPerJob, profileEngine, profileN8n, sumBuckets, writeMeta, type ProfileBatches, type Target } from '../cpuProfiles';
import { fixed, log } from '../format';
import { startProfileSim } from '../profileBatches';
import type { RealN8nScenario } from './realN8n';
import type { Bench } from '../session';

/** One profiled process: the package's CPU per job (own frames; with the n8n/Node/dependency frames below them) and the process's, or why not. */
export interface PackageCpuTarget {
	/** 'engine', or the n8n version. */
	target: string;
	measuredBatches: number;
	jobs: number;
	ownMs: number;
	inclMs: number;
	/** The process's CPU per job over the batches (OS count), under the profiler. */
	processMs: number;
	/** The profile's samples inside the batches ÷ the batches' length (a profile that covers them: about 1). */
	sampledShare: number;
	error?: string;
}

export interface PackageCpuScenario {
	size: '1m';
	measuredBatches: number;
	targets: PackageCpuTarget[];
	/** Where the profiles are, with a meta.json (`npx ts-node --transpile-only bench/cpuProfile.ts --analyse=DIR`); emptied by the next run. */
	profilesDir: string;
	loadAverage: { atStart: number[]; atEnd: number[] };
	durationMs: number;
}

/** Below this share of the batches' length sampled, the profile did not cover the batches: no figure. */
const MIN_SAMPLED_SHARE = 0.9;

/** The package's CPU per job from a target's attribution, or the reason there is no honest figure (`error`). */
export function packageCpuOf(name: string, target: Target, attribution: Attribution): PackageCpuTarget {
	const perJob = packageCpuPerJob(target, attribution);
	const sampledShare = attribution.windowUs > 0 ? attribution.sampledUs / attribution.windowUs : 0;
	const packageUs = sumBuckets(attribution.own, Object.keys(AREAS));
	const result = { target: name, measuredBatches: target.windows.length, jobs: target.jobs, ...perJob, sampledShare };
	const error =
		sampledShare < MIN_SAMPLED_SHARE
			? `the profile covers ${fixed(100 * sampledShare, 0)} % of the batches (at least ${100 * MIN_SAMPLED_SHARE} % needed)`
			: packageUs <= 0
				? "no sample in the batches ran the package's code (is the package where the attribution looks for it?)"
				: !Number.isFinite(perJob.processMs)
					? "the process's CPU was not read"
					: !Number.isFinite(perJob.ownMs) || !Number.isFinite(perJob.inclMs)
						? 'no busy samples in the batches'
						: undefined;
	return error === undefined ? result : { ...result, error };
}

const failed = (name: string, error: string): PackageCpuTarget => ({ target: name, measuredBatches: 0, jobs: 0, ownMs: NaN, inclMs: NaN, processMs: NaN, sampledShare: 0, error });

/** `realN8n`: the real-n8n scenario's run, whose started versions are profiled; undefined (not run): nothing to do. */
export async function runPackageCpu(bench: Bench, realN8n: RealN8nScenario | undefined): Promise<PackageCpuScenario | undefined> {
	if (!realN8n) {
		log('package CPU: skipped (the real-n8n scenario did not run)');
		return undefined;
	}
	const startedAt = Date.now();
	const m = describeMachine();
	const plan: ProfileBatches = { measured: bench.config.quick ? 1 : 3, size: '1m', cache: 'refresh' };
	const profilesDir = path.join(os.tmpdir(), 'flux-bench-package-cpu');
	rmSync(profilesDir, { recursive: true, force: true });
	mkdirSync(profilesDir, { recursive: true });
	const offsetUs = monotonicOffsetUs();
	const sized = await startProfileSim();
	const targets: PackageCpuTarget[] = [];
	const profiled: Target[] = [];
	try {
		for (const name of ['engine', ...realN8n.versions]) {
			const startError = realN8n.servers.find((server) => server.version === name)?.error;
			if (startError !== undefined) {
				targets.push(failed(name, `did not start in the real-n8n scenario: ${startError.slice(0, 300)}`));
				continue;
			}
			const profileDir = path.join(profilesDir, name === 'engine' ? 'engine' : `n8n-${name}`);
			mkdirSync(profileDir, { recursive: true });
			log(`package CPU: profiling ${name === 'engine' ? 'a fresh engine worker' : `n8n ${name}`} (${plan.measured} batch(es) of 30 × 1 MiB after a warm-up) …`);
			try {
				const target = name === 'engine' ? await profileEngine(sized, plan, profileDir) : await profileN8n(name, sized, plan, profileDir);
				const measured = packageCpuOf(name, target, attributeTarget(target, offsetUs).attribution);
				profiled.push(target);
				targets.push(measured);
				log(
					measured.error === undefined
						? `package CPU, ${name}: own ${fixed(measured.ownMs, 2)} ms per job, incl. its n8n/Node calls ${fixed(measured.inclMs, 2)}, the process under the profiler ${fixed(measured.processMs, 2)}`
						: `package CPU, ${name}: no figure: ${measured.error}`,
				);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				targets.push(failed(name, message.slice(0, 2000)));
				log(`package CPU, ${name}: FAILED: ${message.slice(0, 500)}`);
			}
			sized.reset();
		}
	} finally {
		await sized.sim.close();
	}
	const machine = machineLine(m);
	const command = `npm run bench (the package-CPU scenario: ${['engine', ...realN8n.versions].join(', ')})`;
	writeMeta(profilesDir, { machine, command, size: plan.size, batches: plan.measured, offsetUs, targets: profiled });
	log(`package CPU: profiles in ${profilesDir} (their tables: npx ts-node --transpile-only bench/cpuProfile.ts --analyse=${profilesDir})`);
	return { size: '1m', measuredBatches: plan.measured, targets, profilesDir, loadAverage: { atStart: m.loadAverageAtStart, atEnd: os.loadavg() }, durationMs: Date.now() - startedAt };
}
