/**
 * Where the CPU of a job goes (issue 34, "Profile first"): 30-job batches of 1 MiB images (1.5–3.5 s jobs) through
 * Submit → Collect, in the engine bench's worker and in the main process of a real `n8n start` of each version, each
 * run under `node --cpu-prof`; the samples inside the batches (one warm-up batch first, not counted) are attributed
 * by bench/cpuAttribution.ts and printed as markdown tables, ms of CPU per job by area:
 * `npx ts-node --transpile-only bench/cpuProfile.ts [--targets=engine,2.0.3,2.41.1] [--batches=3] [--size=1m] [--out=DIR]`,
 * or `--analyse=DIR` to print the tables again from a run's profiles (DIR/meta.json). The submit node's Cache is
 * Refresh, as in the real-n8n workflow; `--cache=off` (engine only) runs scenario 13's Cache Off instead.
 * `--head=MS`: only the first MS of each batch (the submit node, then the jobs' steps until their tasks exist: the
 * batch's critical path), in ms of the main thread per batch as sampled, with how busy it was in each 20 ms.
 * Not part of `npm run bench` (whose package-CPU rows profile the same batches: bench/scenarios/packageCpu.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describeMachine, machineLine } from './benchResults';
import { buildPackage } from './buildPackage';
import { AREAS, OTHER_BUCKETS, type Area, type Attribution } from './cpuAttribution';
import { attributeTarget, busyUs, cpuPerJob, metaSchema, monotonicOffsetUs, osCpuMs, profileEngine, profileN8n, sumBuckets, writeMeta, type Meta, type Target } from './cpuProfiles';
import { log, table } from './format';
import { argReader, parseBatchArgs, PROFILE_BATCH, startProfileSim } from './profileBatches';
import { sourceLine } from './profileSource';
import type { SizeTag } from './sizedSim';

interface Args {
	targets: string[];
	batches: number;
	size: SizeTag;
	cache: 'refresh' | 'off';
	out: string;
	analyse?: string;
	/** Only the first this many ms of each batch (headReport). */
	headMs?: number;
}

function parseArgs(argv: readonly string[]): Args {
	const value = argReader(argv, ['targets', 'batches', 'size', 'cache', 'out', 'analyse', 'head'], 'bench/cpuProfile.ts');
	const { batches, size } = parseBatchArgs(value);
	const cache = value('cache') ?? 'refresh';
	if (cache !== 'refresh' && cache !== 'off') throw new Error(`--cache must be refresh or off, got ${cache}`);
	const targets = (value('targets') ?? 'engine,2.0.3,2.41.1').split(',').filter(Boolean);
	if (cache === 'off' && targets.some((target) => target !== 'engine')) throw new Error('--cache=off profiles the engine only (the real-n8n workflow sets Cache to Refresh): add --targets=engine');
	const head = value('head');
	if (head !== undefined && !(/^\d+$/.test(head) && Number(head) > 0 && Number(head) % HEAD_BIN_MS === 0)) throw new Error(`--head must be a whole number of ms, a multiple of ${HEAD_BIN_MS}, got ${head}`);
	const stamp = new Date().toISOString().replace(/[:.]/g, '-');
	return {
		targets,
		batches,
		size,
		cache,
		out: path.resolve(value('out') ?? path.join(os.tmpdir(), `flux-cpu-profile-${stamp}`)),
		analyse: value('analyse'),
		headMs: head === undefined ? undefined : Number(head),
	};
}

const share = (us: number, total: number) => (total > 0 ? `${((100 * us) / total).toFixed(0)} %` : 'n/a');

type BucketRow = (label: string, pick: (a: Attribution) => [number, number | undefined]) => Array<string | number>;

/** The table's rows by bucket: the package's areas, their sum, then the other buckets (idle only when `idle`). */
function bucketRows(row: BucketRow, { idle }: { idle: boolean }) {
	const areaKeys = Object.keys(AREAS) as Area[];
	const others = (Object.keys(OTHER_BUCKETS) as Array<keyof typeof OTHER_BUCKETS>).filter((key) => idle || key !== 'idle');
	return [
		...areaKeys.map((key) => row(AREAS[key], (a) => [a.own[key], a.incl[key]])),
		row('**the package, all areas**', (a) => [sumBuckets(a.own, areaKeys), sumBuckets(a.incl, areaKeys)]),
		...others.map((key) => row(OTHER_BUCKETS[key], (a) => [a.own[key], a.incl[key]])),
	];
}

/** A target's `count` largest package functions (by incl.), their times as `format` gives them. */
function functionsTable(target: Target, attribution: Attribution, count: number, format: (us: number) => string): string {
	return table(
		['function', 'where', 'area', 'own', 'incl.'],
		attribution.functions.slice(0, count).map((fn) => [fn.functionName || '(anonymous)', sourceLine(fn, target.runs), fn.areas.map((area) => AREAS[area]).join(' / '), format(fn.ownUs), format(fn.inclUs)]),
	);
}

function report(meta: Meta, results: Array<{ target: Target; attribution: Attribution }>): string {
	const headers = ['ms of CPU per job', ...results.flatMap(({ target }) => [`${target.name}: own`, 'incl. its n8n/Node calls', 'own share'])];
	const row = (label: string, pick: (a: Attribution) => [number, number | undefined]) => [
		label,
		...results.flatMap(({ target, attribution }) => {
			const [own, incl] = pick(attribution);
			const ms = cpuPerJob(target, attribution);
			return [ms(own).toFixed(2), incl === undefined ? '' : ms(incl).toFixed(2), share(own, busyUs(attribution))];
		}),
	];
	const rows = [...bucketRows(row, { idle: false }), row('**the process** (OS count)', (a) => [busyUs(a), undefined])];
	const lines = [
		`${meta.machine}`,
		`${meta.batches} measured batches of ${PROFILE_BATCH} × ${meta.size} image jobs (1.5–3.5 s) per target, after one warm-up batch; command: \`${meta.command}\``,
		'',
		table(headers, rows),
		'',
		table(
			['per target', 'jobs', 'batches (s)', 'process CPU, OS count (ms/job)', 'main thread busy in the samples (ms/job, wall)', 'idle in the samples (ms/job)', 'samples', 'Node'],
			results.map(({ target, attribution }) => [
				target.name,
				target.jobs,
				(attribution.windowUs / 1e6).toFixed(1),
				(osCpuMs(target) / target.jobs).toFixed(2),
				(busyUs(attribution) / 1000 / target.jobs).toFixed(2),
				(attribution.own.idle / 1000 / target.jobs).toFixed(2),
				attribution.samples,
				target.nodeVersion,
			]),
		),
	];
	for (const { target, attribution } of results) {
		const ms = cpuPerJob(target, attribution);
		lines.push('', `The package's functions by CPU incl. their n8n/Node calls, ${target.name} (ms per job):`, '');
		lines.push(functionsTable(target, attribution, 15, (us) => ms(us).toFixed(2)));
	}
	return lines.join('\n');
}

/** The busy line's bins, ms. */
const HEAD_BIN_MS = 20;

/**
 * The first `headMs` of each batch: ms of the main thread per batch as the samples saw it (wall time, not scaled to
 * the OS's CPU count as `report` is: in the head the thread is the batch's critical path, and a sample it spent
 * waiting for a core is time the batch waited too), by bucket, own and incl.; the package's functions; how busy the
 * thread was in each 20 ms from the batch's start.
 */
function headReport(meta: Meta, results: Array<{ target: Target; attribution: Attribution; busy: number[] }>, headMs: number): string {
	const perBatch = (target: Target, us: number) => (us / 1000 / target.windows.length).toFixed(1);
	const row = (label: string, pick: (a: Attribution) => [number, number | undefined]) => [
		label,
		...results.flatMap(({ target, attribution }) => {
			const [own, incl] = pick(attribution);
			return [perBatch(target, own), incl === undefined ? '' : perBatch(target, incl)];
		}),
	];
	const lines = [
		`${meta.machine}`,
		`the first ${headMs} ms of each of ${meta.batches} measured batches of ${PROFILE_BATCH} × ${meta.size} image jobs (1.5–3.5 s) per target, after one warm-up batch; command: \`${meta.command} --head=${headMs}\``,
		'',
		table(
			[`ms of the main thread per batch, first ${headMs} ms`, ...results.flatMap(({ target }) => [`${target.name}: own`, 'incl. its n8n/Node calls'])],
			[...bucketRows(row, { idle: true }), row('**busy** (not idle)', (a) => [busyUs(a), undefined])],
		),
		'',
		table(
			['main thread busy, % of each 20 ms from the batch start', 'busy'],
			results.map(({ target, busy }) => [target.name, busy.map((us) => Math.round(us / (HEAD_BIN_MS * 10))).join(' ')]),
		),
	];
	for (const { target, attribution } of results) {
		lines.push('', `The package's functions in the first ${headMs} ms, ${target.name} (ms per batch):`, '');
		lines.push(functionsTable(target, attribution, 10, (us) => perBatch(target, us)));
	}
	return lines.join('\n');
}

function analyse(dir: string, headMs?: number): string {
	const meta = metaSchema.parse(JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')));
	const results = meta.targets.map((target) => ({ target, ...attributeTarget(target, meta.offsetUs, headMs === undefined ? undefined : { headMs, binMs: HEAD_BIN_MS }) }));
	return headMs === undefined ? report(meta, results) : headReport(meta, results, headMs);
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	if (args.analyse) {
		console.log(analyse(path.resolve(args.analyse), args.headMs));
		return;
	}
	const m = describeMachine();
	const machine = machineLine(m);
	log(machine);
	const offsetUs = monotonicOffsetUs();
	mkdirSync(args.out, { recursive: true });
	const versions = args.targets.filter((target) => target !== 'engine');
	if (versions.length > 0) await buildPackage('cpu profile');
	const plan = { measured: args.batches, size: args.size, cache: args.cache };
	const sized = await startProfileSim();
	const targets: Target[] = [];
	try {
		for (const name of args.targets) {
			const profileDir = path.join(args.out, name === 'engine' ? 'engine' : `n8n-${name}`);
			mkdirSync(profileDir, { recursive: true });
			log(`profiling ${name === 'engine' ? 'the engine worker' : `n8n ${name}`} …`);
			targets.push(name === 'engine' ? await profileEngine(sized, plan, profileDir) : await profileN8n(name, sized, plan, profileDir));
			sized.reset();
		}
	} finally {
		await sized.sim.close();
	}
	const command = `npx ts-node --transpile-only bench/cpuProfile.ts --targets=${args.targets.join(',')} --batches=${args.batches} --size=${args.size}${args.cache === 'off' ? ' --cache=off' : ''}`;
	const meta: Meta = { machine, command, size: args.size, batches: args.batches, offsetUs, targets };
	writeMeta(args.out, meta);
	console.log('');
	console.log(analyse(args.out, args.headMs));
	console.log(`\nprofiles and meta.json in ${args.out} (again: --analyse=${args.out}${args.headMs === undefined ? '' : ` --head=${args.headMs}`})`);
}

main().catch((error: unknown) => {
	console.error('cpu profile failed:', error);
	process.exitCode = 1;
});
