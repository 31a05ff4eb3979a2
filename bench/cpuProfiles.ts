/**
 * Profiled batches and their attribution, shared by bench/cpuProfile.ts (the tables of "Where the CPU goes") and the
 * bench's package-CPU scenario (bench/scenarios/packageCpu.ts): 30-job batches through the engine's worker or a real
 * `n8n start` of a version, each process under `node --cpu-prof`, one warm-up batch first (not counted); then each
 * profile's samples inside the measured batches, attributed by bench/cpuAttribution.ts.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { z } from 'zod';

import { AREAS, attributeProfile, busyByBin, parseCpuProfile, type Area, type Attribution, type Bucket } from './cpuAttribution';
import { log } from './format';
import { fireN8nBatch, openProfiledN8n, PROFILE_BATCH, runEngineBatch, startProfiledWorker } from './profileBatches';
import { packageLocation } from './profileSource';
import type { SizedSim, SizeTag } from './sizedSim';

const targetSchema = z.object({
	name: z.string(),
	/** The folder the process wrote its one .cpuprofile into. */
	profileDir: z.string(),
	/** The measured batches, [from, to] epoch ms. */
	windows: z.array(z.tuple([z.number(), z.number()])),
	jobs: z.number(),
	/** The process's CPU (user + system) over each measured batch, ms, as the OS counted it. */
	cpuMs: z.array(z.number()),
	/** 'dist': the installed package (dist/…js); 'ts-node': this checkout's sources. */
	runs: z.enum(['dist', 'ts-node']),
	nodeVersion: z.string(),
});
export type Target = z.infer<typeof targetSchema>;

/** A run's meta.json (in the folder above the targets' profile folders): what `bench/cpuProfile.ts --analyse=DIR` reads. */
export const metaSchema = z.object({ machine: z.string(), command: z.string(), size: z.string(), batches: z.number(), offsetUs: z.number(), targets: z.array(targetSchema) });
export type Meta = z.infer<typeof metaSchema>;

export const writeMeta = (dir: string, meta: Meta): void => writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');

/** What the profiled batches are: how many are measured (after one warm-up batch), the image size, the submit node's Cache. */
export interface ProfileBatches {
	measured: number;
	size: SizeTag;
	cache: 'refresh' | 'off';
}

/** Runs the batches in a fresh engine worker under `--cpu-prof` (its profile lands in `profileDir` as it exits). */
export async function profileEngine(sized: SizedSim, plan: ProfileBatches, profileDir: string): Promise<Target> {
	const worker = await startProfiledWorker('cpu-profile engine', `--cpu-prof --cpu-prof-dir=${profileDir}`);
	const windows: Array<[number, number]> = [];
	const cpuMs: number[] = [];
	try {
		for (let batch = -1; batch < plan.measured; batch++) {
			const prefix = batch < 0 ? 'short warm-up' : 'short job';
			const result = await runEngineBatch(worker, sized, prefix, plan.size, plan.cache);
			log(`engine ${batch < 0 ? 'warm-up' : `batch ${batch + 1}`}: ${result.wallMs} ms, CPU ${(result.cpu.user + result.cpu.system).toFixed(0)} ms`);
			if (batch < 0) continue;
			windows.push([result.startedAt, result.startedAt + result.wallMs]);
			cpuMs.push(result.cpu.user + result.cpu.system);
		}
	} finally {
		await worker.close(); // the profile is written as the worker exits
	}
	return { name: 'engine', profileDir, windows, jobs: PROFILE_BATCH * plan.measured, cpuMs, runs: 'ts-node', nodeVersion: process.versions.node };
}

/** Runs the batches through a real `n8n start` of `version` (the package as built in dist/) whose main process runs under `--cpu-prof`. */
export async function profileN8n(version: string, sized: SizedSim, plan: ProfileBatches, profileDir: string): Promise<Target> {
	const session = await openProfiledN8n(version, sized, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
	const windows: Array<[number, number]> = [];
	const cpuMs: number[] = [];
	try {
		for (let batch = -1; batch < plan.measured; batch++) {
			const execution = await fireN8nBatch(session, batch < 0 ? 'short warm-up' : 'short job', plan.size);
			log(`n8n ${version} ${batch < 0 ? 'warm-up' : `batch ${batch + 1}`}: ${execution.answeredAt - execution.firedAt} ms, CPU ${execution.n8nCpuMs ?? 'n/a'} ms`);
			if (batch < 0) continue;
			windows.push([execution.firedAt, execution.answeredAt]);
			cpuMs.push(execution.n8nCpuMs ?? NaN);
		}
	} finally {
		await session.close(); // n8n stops gracefully and its Node writes the profile
	}
	return { name: `n8n ${version}`, profileDir, windows, jobs: PROFILE_BATCH * plan.measured, cpuMs, runs: 'dist', nodeVersion: session.nodeVersion };
}

/** Profile timestamps are CLOCK_MONOTONIC µs (as process.hrtime); the batches are timed in epoch ms: add this to epoch µs. */
export const monotonicOffsetUs = (): number => Number(process.hrtime.bigint() / 1000n) - Date.now() * 1000;

/**
 * The target's profile attributed over its measured batches (`offsetUs`: monotonicOffsetUs() of the run; `head`: only
 * each batch's first `headMs`, and the main thread's busy time in each `binMs` from each batch's start).
 */
export function attributeTarget(target: Target, offsetUs: number, head?: { headMs: number; binMs: number }): { attribution: Attribution; busy: number[] } {
	// CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: the main thread's (n8n also runs worker threads, profiled too).
	const files = readdirSync(target.profileDir).filter((file) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file));
	if (files.length !== 1) throw new Error(`${target.profileDir}: expected one main-thread .cpuprofile, found ${files.length} (did the process exit cleanly?)`);
	const file = path.join(target.profileDir, files[0]);
	const profile = parseCpuProfile(readFileSync(file, 'utf8'), file);
	const where = packageLocation(target.runs);
	const windows = target.windows.map(([from, to]) => [from * 1000 + offsetUs, (head === undefined ? to : Math.min(to, from + head.headMs)) * 1000 + offsetUs] as const);
	const busy = head === undefined ? [] : busyByBin(profile, windows.map(([from]) => from), head.binMs * 1000, Math.ceil(head.headMs / head.binMs), where);
	return { attribution: attributeProfile(profile, windows, where), busy };
}

export const sumBuckets = (record: Record<Bucket, number>, keys: readonly string[]) => keys.reduce((total, key) => total + record[key as Bucket], 0);
export const busyUs = (a: Attribution) => a.sampledUs - a.own.idle;
export const osCpuMs = (target: Target) => target.cpuMs.reduce((a, b) => a + b, 0);

/**
 * ms of CPU per job of `us` sampled: V8 samples the main thread on wall-clock ticks, so on a loaded machine a sample
 * also covers the time the thread waited for a core. A bucket's ms of CPU per job is therefore its share of the busy
 * samples times the CPU the OS counted for the process over the same batches (all its threads), ÷ the jobs.
 */
export const cpuPerJob = (target: Target, a: Attribution) => (us: number) => ((us / busyUs(a)) * osCpuMs(target)) / target.jobs;

/** The package's CPU per job, all its areas: its own frames, and with the n8n/Node/dependency frames below them; and the process's. */
export function packageCpuPerJob(target: Target, a: Attribution): { ownMs: number; inclMs: number; processMs: number } {
	const areaKeys = Object.keys(AREAS) as Area[];
	const ms = cpuPerJob(target, a);
	return { ownMs: ms(sumBuckets(a.own, areaKeys)), inclMs: ms(sumBuckets(a.incl, areaKeys)), processMs: osCpuMs(target) / target.jobs };
}
