/**
 * What a job allocates, and what the GC pays for it (issue 34: GC is the largest row of n8n's CPU profile): the same
 * 30-job batches as bench/cpuProfile.ts (1.5–3.5 s jobs, 1 MiB images unless `--size`), through the engine bench's
 * worker and the main process of a real `n8n start` of each version, each started with `--inspect` on 127.0.0.1.
 * After one warm-up batch, the sampling heap profiler runs over the measured batches counting objects the GC freed
 * too (so: what was allocated, not what is left; Buffers' memory outside the JS heap is not seen), attributed like
 * the CPU (bench/heapAttribution.ts), and a PerformanceObserver in the process records its GC pauses per batch; n8n
 * also runs with `--trace-incremental-marking`, whose lines say why V8 started each marking. Prints markdown tables:
 * MB allocated per job by area (everything the process allocated over the measured batches, divided by the jobs),
 * GC pauses and why marking started, per batch; the package's functions by bytes.
 * `npx ts-node --transpile-only bench/heapProfile.ts [--targets=engine,2.0.3,2.41.1] [--batches=3] [--size=1m]`.
 * Not part of `npm run bench`.
 */
import { z } from 'zod';

import { getFreePort } from '../scripts/n8n/processes';
import { describeMachine, machineLine } from './benchResults';
import { buildPackage } from './buildPackage';
import { AREAS, OTHER_BUCKETS, type Area, type Attribution, type Bucket } from './cpuAttribution';
import { log, table } from './format';
import { attributeAllocations } from './heapAttribution';
import { markingReasons, type GcPause } from './gcEvents';
import { InspectorSession } from './inspectorSession';
import { argReader, fireN8nBatch, openProfiledN8n, parseBatchArgs, PROFILE_BATCH, runEngineBatch, startProfiledWorker, startProfileSim } from './profileBatches';
import { packageLocation, sourceLine, type PackageRuns } from './profileSource';
import type { SizedSim, SizeTag } from './sizedSim';

const MB = 1e6;

interface Args {
	targets: string[];
	batches: number;
	size: SizeTag;
}

function parseArgs(argv: readonly string[]): Args {
	const value = argReader(argv, ['targets', 'batches', 'size'], 'bench/heapProfile.ts');
	return { targets: (value('targets') ?? 'engine,2.0.3,2.41.1').split(',').filter(Boolean), ...parseBatchArgs(value) };
}

interface Measured {
	name: string;
	runs: PackageRuns;
	nodeVersion: string;
	jobs: number;
	attribution: ReturnType<typeof attributeAllocations>;
	/** The GC pauses of each measured batch. */
	gc: GcPause[][];
	/** V8's heap in use after the last batch, bytes. */
	heapUsed: number;
	/** Why V8 started incremental marking over the measured batches, in all the process's threads (n8n only). */
	markingStarts?: Map<string, number>;
}

/**
 * The process measured: its name in the tables, its inspector's port, how it runs the package, its Node, how to run
 * one batch, and (n8n, started with `--trace-incremental-marking`) what it printed so far.
 */
interface Target {
	name: string;
	port: number;
	runs: PackageRuns;
	nodeVersion: string;
	batch(prefix: string): Promise<void>;
	printed?: () => string;
}

/** Runs the warm-up batch, then the measured batches under the heap sampler and the GC observer. */
async function measure({ name, port, runs, nodeVersion, batch, printed }: Target, args: Args): Promise<Measured> {
	await batch('heap warm-up');
	const inspector = await InspectorSession.connect(port);
	try {
		await inspector.recordGc();
		await inspector.startHeapSampling();
		const gc: GcPause[][] = [];
		let marking = '';
		for (let i = 0; i < args.batches; i++) {
			await inspector.takeGc();
			const from = printed?.().length ?? 0;
			await batch('heap job');
			gc.push(await inspector.takeGc());
			const text = printed?.() ?? '';
			if (text.length < from) throw new Error(`${name}'s output was cut while a batch ran (it keeps the last MiBs only): run fewer batches`);
			marking += text.slice(from);
		}
		const profile = await inspector.stopHeapSampling(`${name}'s heap profile`);
		const heapUsed = z.number().parse(await inspector.evaluate('process.memoryUsage().heapUsed'));
		const attribution = attributeAllocations(profile, packageLocation(runs));
		return { name, runs, nodeVersion, jobs: PROFILE_BATCH * args.batches, attribution, gc, heapUsed, markingStarts: printed ? markingReasons(marking) : undefined };
	} finally {
		inspector.close();
	}
}

async function measureEngine(sized: SizedSim, args: Args): Promise<Measured> {
	const port = await getFreePort();
	const worker = await startProfiledWorker('heap-profile engine', `--inspect=127.0.0.1:${port}`);
	try {
		const batch = async (prefix: string) => void (await runEngineBatch(worker, sized, prefix, args.size));
		return await measure({ name: 'engine', port, runs: 'ts-node', nodeVersion: process.versions.node, batch }, args);
	} finally {
		await worker.close();
	}
}

async function measureN8n(version: string, sized: SizedSim, args: Args): Promise<Measured> {
	const port = await getFreePort();
	const session = await openProfiledN8n(version, sized, [`--inspect=127.0.0.1:${port}`, '--trace-incremental-marking']);
	try {
		const batch = async (prefix: string) => void (await fireN8nBatch(session, prefix, args.size));
		return await measure({ name: `n8n ${version}`, port, runs: 'dist', nodeVersion: session.nodeVersion, batch, printed: () => session.output() }, args);
	} finally {
		await session.close();
	}
}

const perJob = (m: Measured, bytes: number) => (bytes / MB / m.jobs).toFixed(2);
const sumOf = (record: Record<Bucket, number>, keys: readonly string[]) => keys.reduce((total, key) => total + record[key as Bucket], 0);
const pauses = (m: Measured, kind: GcPause['kind']) => m.gc.map((batch) => batch.filter((pause) => pause.kind === kind));
const perBatch = (m: Measured, kind: GcPause['kind']) => {
	const batches = pauses(m, kind);
	const count = batches.reduce((total, batch) => total + batch.length, 0) / batches.length;
	const ms = batches.reduce((total, batch) => total + batch.reduce((sum, pause) => sum + pause.ms, 0), 0) / batches.length;
	return `${count.toFixed(1)} × / ${ms.toFixed(1)} ms`;
};
const reasonsPerBatch = (m: Measured, batches: number) =>
	m.markingStarts === undefined ? 'not traced' : [...m.markingStarts].map(([reason, count]) => `${reason}: ${(count / batches).toFixed(1)}`).join('; ') || 'none';

function report(machine: string, command: string, results: Measured[], batches: number): string {
	const areaKeys = Object.keys(AREAS) as Area[];
	const otherKeys = (Object.keys(OTHER_BUCKETS) as Array<keyof typeof OTHER_BUCKETS>).filter((key) => key !== 'idle' && key !== 'gc');
	const row = (label: string, pick: (a: Attribution) => [number, number | undefined]) => [
		label,
		...results.flatMap((m) => {
			const [own, incl] = pick(m.attribution);
			return [perJob(m, own), incl === undefined ? '' : perJob(m, incl)];
		}),
	];
	const lines = [
		machine,
		`command: \`${command}\`; after one warm-up batch, the measured batches of ${PROFILE_BATCH} × 1.5–3.5 s jobs under V8's sampling heap profiler (every 16 KiB on average; objects already freed counted too, Buffers' memory outside the JS heap not seen)`,
		'',
		table(
			['MB allocated per job (JS heap)', ...results.flatMap((m) => [`${m.name}: own`, 'incl. its n8n/Node calls'])],
			[
				...areaKeys.map((key) => row(AREAS[key], (a) => [a.own[key], a.incl[key]])),
				row('**the package, all areas**', (a) => [sumOf(a.own, areaKeys), sumOf(a.incl, areaKeys)]),
				...otherKeys.map((key) => row(OTHER_BUCKETS[key], (a) => [a.own[key], a.incl[key]])),
				row('**the process** (attributed)', (a) => [a.sampledUs, undefined]),
				['samples V8 gave no node of its call tree (not attributed)', ...results.flatMap((m) => [perJob(m, m.attribution.strayBytes), ''])],
			],
		),
		'',
		table(
			['per target', 'jobs', 'JS heap allocated, all samples (MB/job)', 'young-generation GCs per batch', 'mark-compacts per batch', 'incremental marking started per batch', 'why V8 started marking, per batch (all threads)', 'JS heap in use after the last batch (MB)', 'Node'],
			results.map((m) => [m.name, m.jobs, perJob(m, m.attribution.bytes + m.attribution.strayBytes), perBatch(m, 'minor'), perBatch(m, 'major'), perBatch(m, 'incremental'), reasonsPerBatch(m, batches), (m.heapUsed / MB).toFixed(0), m.nodeVersion]),
		),
	];
	for (const m of results) {
		lines.push('', `The package's functions by bytes allocated incl. their n8n/Node calls, ${m.name} (MB per job):`, '');
		lines.push(
			table(
				['function', 'where', 'area', 'own', 'incl.'],
				m.attribution.functions.slice(0, 12).map((fn) => [fn.functionName || '(anonymous)', sourceLine(fn, m.runs), fn.areas.map((area) => AREAS[area]).join(' / '), perJob(m, fn.ownUs), perJob(m, fn.inclUs)]),
			),
		);
	}
	return lines.join('\n');
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const m = describeMachine();
	const machine = machineLine(m);
	log(machine);
	if (args.targets.some((target) => target !== 'engine')) await buildPackage('heap profile');
	const sized = await startProfileSim();
	const results: Measured[] = [];
	try {
		for (const name of args.targets) {
			log(`measuring ${name === 'engine' ? 'the engine worker' : `n8n ${name}`} …`);
			results.push(name === 'engine' ? await measureEngine(sized, args) : await measureN8n(name, sized, args));
			sized.reset();
		}
	} finally {
		await sized.sim.close();
	}
	console.log('');
	console.log(report(machine, `npx ts-node --transpile-only bench/heapProfile.ts --targets=${args.targets.join(',')} --batches=${args.batches} --size=${args.size}`, results, args.batches));
}

main().catch((error: unknown) => {
	console.error('heap profile failed:', error);
	process.exitCode = 1;
});
