/**
 * Where a process's CPU went, from a V8 `.cpuprofile` (`node --cpu-prof`): the samples inside the given time windows,
 * each sample's self time given to a bucket — one of this package's areas (by the package source file of the frame),
 * n8n and other libraries, Node/V8 built-ins, GC, program, idle. Two sums per area: "own" (the package's own frames)
 * and "incl" (also the n8n/Node frames it calls: each non-package frame goes to the area of its nearest package
 * ancestor in the call tree; n8n's binary-data helpers called from the package go to the hand-over). Stacks are
 * synchronous: work resumed after an `await` has no caller frame, so "incl" is a lower bound of what an area causes;
 * two kinds of such work are still told apart: n8n's binary-data service (the hand-over: in the bench's workflows only
 * the collector makes binary data) and the package's own dependencies (undici: HTTP requests; others: other (package)).
 */
import { z } from 'zod';

/** The package's areas, in the order the table shows them. */
export const AREAS = {
	prepare: 'preparing items and keys',
	claims: 'claims',
	journal: 'journal',
	ledger: 'spend ledger',
	submit: 'submit',
	http: 'HTTP requests (submit and poll)',
	polling: 'polling',
	download: 'download and hash',
	store: 'result store',
	handOver: "hand-over into n8n's binary data",
	collector: 'collector',
	otherPackage: 'other (package)',
} as const;
export type Area = keyof typeof AREAS;

/** Everything a sample can be counted as. */
export const OTHER_BUCKETS = {
	deps: "the package's dependencies (undici, zod, …)",
	n8n: 'n8n and its libraries',
	node: 'Node.js and V8 built-ins (node:…, native)',
	gc: 'GC',
	program: '(program): V8/native outside JS',
	harness: 'bench harness (bench/, test/)',
	idle: 'idle',
} as const;
export type Bucket = Area | keyof typeof OTHER_BUCKETS;

const profileSchema = z.object({
	nodes: z.array(
		z.object({
			id: z.number(),
			callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number(), columnNumber: z.number() }),
			children: z.array(z.number()).optional(),
		}),
	),
	startTime: z.number(),
	endTime: z.number(),
	samples: z.array(z.number()),
	timeDeltas: z.array(z.number()),
});
export type CpuProfile = z.infer<typeof profileSchema>;
type CallFrame = CpuProfile['nodes'][number]['callFrame'];

export function parseCpuProfile(text: string, source: string): CpuProfile {
	const parsed = profileSchema.safeParse(JSON.parse(text));
	if (!parsed.success) throw new Error(`${source} is not a V8 .cpuprofile: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
	return parsed.data;
}

/**
 * Area of a package source file (`src/store/claims/fileClaims`, no extension) and function. `undefined`: a file
 * shared by several areas (the HTTP job and its requests, endpoints, errors, a kind's job glue) — its frames take
 * the area of their nearest package caller that has one, else `fallbackArea`'s.
 */
export function areaOf(file: string, functionName: string): Area | undefined {
	const rules: Array<[RegExp, Area | 'shared']> = [
		[/^src\/fluxN8n\/fluxNode$/, /^(toBinary|binary|resultSource)$/.test(functionName) ? 'handOver' : 'otherPackage'],
		[/^src\/fluxN8n\/(prepare|fluxParameter|fluxJobKey|referenceImages|sharedReferenceImages|fluxCredentials|invalidInput)/, 'prepare'],
		[/^src\/fluxVideoN8n\/(prepare|videoParameters|videoMedia)/, 'prepare'],
		[/^src\/(models|parameters|account)\//, 'prepare'],
		[/^src\/store\/(jobKey|occurrences)$/, 'prepare'],
		[/^src\/n8n\/inputBinary$/, 'prepare'],
		[/^src\/store\/(claims\/|singleFlight$)/, 'claims'],
		[/^src\/store\/(journal|appendFiles$|bucketViews$)/, 'journal'],
		[/^src\/fluxN8n\/(submitJournal|unknownJob)$/, 'journal'],
		[/^src\/spend\//, 'ledger'],
		[/^src\/fluxN8n\/spendTerms$/, 'ledger'],
		[/^src\/flux\/(submit|admission|budget|generateImage|generateVideo)$/, 'submit'],
		[/^src\/(accountLimit)\//, 'submit'],
		[/^src\/fluxN8n\/accountAdmission$/, 'submit'],
		[/^src\/flux\/(poll|statusTable)/, 'polling'],
		[/^src\/flux\/(download|bodyFile|imageType|videoType)/, 'download'],
		[/^src\/fluxN8n\/downloadFolders$/, 'download'],
		[/^src\/fluxN8n\/(storedJob|ownedJob|jobResult)$/, 'store'],
		[/^src\/store\//, 'store'],
		[/^src\/collect\//, 'collector'],
		[/^src\/flux\/(job|request|body|retry|retryPolicy|httpAgent|endpoints|addresses|errors|testHooks)$/, 'shared'],
		[/^src\/(fluxN8n\/imageJobs|fluxVideoN8n\/videoJobs)$/, 'shared'],
		[/^src\/coordination\//, 'shared'], // the folder lock, records, heartbeat: claims' or the ledger's, by their caller
	];
	const hit = rules.find(([pattern]) => pattern.test(file));
	if (!hit) return 'otherPackage';
	return hit[1] === 'shared' ? undefined : hit[1];
}

/** The area of a shared file's frame when no package caller on its stack has one (after an `await`, say). */
function fallbackArea(file: string): Area {
	if (/^src\/flux\/(request|body|retry|retryPolicy|httpAgent)$/.test(file)) return 'http';
	if (/^src\/flux\/job$/.test(file)) return 'submit';
	if (/Jobs$/.test(file)) return 'store';
	return 'otherPackage';
}

/** Where the package's code lives in the profiled process: installed (n8n) or this checkout (the engine bench). */
export interface PackageLocation {
	/** The package's folder name under node_modules. */
	name: string;
	/** The checkout, when the process runs its sources (ts-node). */
	repoRoot?: string;
	/** The package's own dependencies (package.json), told apart from n8n and its libraries. */
	dependencies?: readonly string[];
}

type Frame = { kind: 'package'; file: string } | { kind: Exclude<Bucket, Area> };

/** What a call frame is: a package file (path from the package root, no `dist/`, no extension) or another bucket. */
export function frameKind(frame: CallFrame, where: PackageLocation): Frame {
	const { url, functionName } = frame;
	if (url === '') {
		if (functionName === '(idle)') return { kind: 'idle' };
		if (functionName === '(garbage collector)') return { kind: 'gc' };
		if (functionName === '(program)' || functionName === '(root)') return { kind: 'program' };
		return { kind: 'node' };
	}
	if (url.startsWith('node:')) return { kind: 'node' };
	const filePath = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
	const marker = `/node_modules/${where.name}/`;
	let rel: string | undefined;
	if (filePath.includes(marker)) rel = filePath.slice(filePath.lastIndexOf(marker) + marker.length);
	else if (where.repoRoot && filePath.startsWith(where.repoRoot + '/') && !filePath.includes('/node_modules/')) rel = filePath.slice(where.repoRoot.length + 1);
	if (rel === undefined || rel.startsWith('node_modules/')) return { kind: where.dependencies?.some((dep) => filePath.includes(`/node_modules/${dep}/`)) ? 'deps' : 'n8n' };
	rel = rel.replace(/^dist\//, '').replace(/\.(js|ts)$/, '');
	if (/^(src|nodes|credentials)\//.test(rel)) return { kind: 'package', file: rel };
	return { kind: 'harness' };
}

/** n8n's binary-data handling (the helpers the package calls to hand a result over, and the service behind them). */
const isN8nBinaryData = (frame: CallFrame): boolean =>
	/\/node_modules\/@n8n\/blob-storage\//.test(frame.url) || (/\/n8n-core\//.test(frame.url) && (/binary/i.test(frame.url) || /binary/i.test(frame.functionName)));

/** One package function's time: its own frames (`ownUs`), and with the n8n/Node calls it makes (`inclUs`). */
export interface FunctionTime {
	/** Its area; a function of a shared file has its callers' (largest time first). */
	areas: Area[];
	file: string;
	functionName: string;
	/** 0-based, as in the profile: a line of the file the process ran (dist/…js, or the TypeScript ts-node ran). */
	lineNumber: number;
	columnNumber: number;
	ownUs: number;
	inclUs: number;
}

export interface Attribution {
	/** Self time per bucket, µs: the package's own frames by area, everything else by what it is. */
	own: Record<Bucket, number>;
	/** The same, with n8n/Node frames called (synchronously) from a package frame moved to that frame's area. */
	incl: Record<Bucket, number>;
	/** Package functions, largest `inclUs` first. */
	functions: FunctionTime[];
	/** The windows' total length and the sampled time inside them, µs. */
	windowUs: number;
	sampledUs: number;
	samples: number;
}

const zeroBuckets = (): Record<Bucket, number> =>
	Object.fromEntries([...Object.keys(AREAS), ...Object.keys(OTHER_BUCKETS)].map((key) => [key, 0])) as Record<Bucket, number>;

/** Attributes the samples whose time falls in `windows` ([from, to] in the profile's clock, µs: CLOCK_MONOTONIC on Linux). */
export function attributeProfile(profile: CpuProfile, windows: ReadonlyArray<readonly [number, number]>, where: PackageLocation): Attribution {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const kinds = new Map(profile.nodes.map((node) => [node.id, frameKind(node.callFrame, where)]));
	// Per profile node: [own bucket, incl bucket, the package frame that takes it in "incl"], computed once.
	const resolved = new Map<number, [Bucket, Bucket, number | undefined]>();
	const packageArea = (id: number): Area | undefined => {
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
			const kind = kinds.get(at)!;
			if (kind.kind !== 'package') continue;
			const area = areaOf(kind.file, byId.get(at)!.callFrame.functionName);
			if (area) return area;
		}
		return undefined;
	};
	const bucketsOf = (id: number): [Bucket, Bucket, number | undefined] => {
		const cached = resolved.get(id);
		if (cached) return cached;
		const kind = kinds.get(id)!;
		let result: [Bucket, Bucket, number | undefined];
		if (kind.kind === 'package') {
			const area = packageArea(id) ?? fallbackArea(kind.file);
			result = [area, area, id];
		} else if (kind.kind === 'idle' || kind.kind === 'gc' || kind.kind === 'program') {
			result = [kind.kind, kind.kind, undefined];
		} else {
			// The nearest package ancestor takes this frame's time in "incl"; through n8n's binary data: the hand-over.
			// With no package frame on the stack (work resumed after an await): n8n's binary data is the hand-over
			// still, and the package's dependencies' work is the package's (undici: its HTTP requests).
			let incl: Bucket = kind.kind;
			let caller: number | undefined;
			let viaBinaryData = false;
			let viaDependency: Bucket | undefined;
			for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
				const above = kinds.get(at)!;
				if (above.kind === 'package') {
					incl = viaBinaryData ? 'handOver' : (packageArea(at) ?? fallbackArea(above.file));
					caller = at;
					break;
				}
				const { callFrame } = byId.get(at)!;
				if (isN8nBinaryData(callFrame)) viaBinaryData = true;
				if (above.kind === 'deps') viaDependency ??= /\/node_modules\/undici\//.test(callFrame.url) ? 'http' : 'otherPackage';
			}
			if (caller === undefined) incl = viaBinaryData ? 'handOver' : (viaDependency ?? kind.kind);
			result = [kind.kind, incl, caller];
		}
		resolved.set(id, result);
		return result;
	};

	const own = zeroBuckets();
	const incl = zeroBuckets();
	// One row per package function (a function appears under several callers in the tree).
	const functions = new Map<string, FunctionTime>();
	const areaTimes = new Map<FunctionTime, Map<Area, number>>();
	const addToFunction = (id: number, inclUs: number, ownUs: number): void => {
		const { callFrame } = byId.get(id)!;
		const { file } = kinds.get(id) as { file: string };
		const key = `${file}\u0000${callFrame.functionName}\u0000${callFrame.lineNumber}\u0000${callFrame.columnNumber}`;
		let row = functions.get(key);
		if (!row) functions.set(key, (row = { areas: [], file, functionName: callFrame.functionName, lineNumber: callFrame.lineNumber, columnNumber: callFrame.columnNumber, ownUs: 0, inclUs: 0 }));
		row.inclUs += inclUs;
		row.ownUs += ownUs;
		const area = bucketsOf(id)[0] as Area;
		const times = areaTimes.get(row) ?? new Map<Area, number>();
		areaTimes.set(row, times.set(area, (times.get(area) ?? 0) + inclUs));
	};
	let sampledUs = 0;
	const { samples, timeDeltas } = profile;
	let t = profile.startTime;
	const times = samples.map((_, i) => (t += timeDeltas[i]));
	for (let i = 0; i < samples.length; i++) {
		const at = times[i];
		if (!windows.some(([from, to]) => at >= from && at <= to)) continue;
		// A sample stands for the time until the next one.
		const us = Math.max(0, (i + 1 < samples.length ? times[i + 1] : profile.endTime) - at);
		const [ownBucket, inclBucket, caller] = bucketsOf(samples[i]);
		own[ownBucket] += us;
		incl[inclBucket] += us;
		sampledUs += us;
		if (caller !== undefined) addToFunction(caller, us, caller === samples[i] ? us : 0);
	}
	for (const [row, times] of areaTimes) row.areas = [...times].sort((a, b) => b[1] - a[1]).map(([area]) => area);
	const windowUs = windows.reduce((sum, [from, to]) => sum + (to - from), 0);
	return { own, incl, functions: [...functions.values()].sort((a, b) => b.inclUs - a.inclUs), windowUs, sampledUs, samples: samples.length };
}

/**
 * How busy the main thread was from the start of each window on: the mean µs per window of samples that were not
 * idle, in bins of `binUs` (bin i covers [from + i·binUs, from + (i+1)·binUs) of each window). A sample stands for
 * the time until the next one, split over the bins that time falls in (no bin holds more than `binUs`). The windows'
 * own ends are not looked at: `bins` bins each.
 */
export function busyByBin(profile: CpuProfile, starts: readonly number[], binUs: number, bins: number, where: PackageLocation): number[] {
	const idle = new Set(profile.nodes.filter((node) => frameKind(node.callFrame, where).kind === 'idle').map((node) => node.id));
	const busy = new Array<number>(bins).fill(0);
	let at = profile.startTime;
	for (let i = 0; i < profile.samples.length; i++) {
		at += profile.timeDeltas[i];
		if (idle.has(profile.samples[i])) continue;
		const next = i + 1 < profile.samples.length ? at + profile.timeDeltas[i + 1] : profile.endTime;
		for (const from of starts) {
			for (let bin = Math.max(0, Math.floor((at - from) / binUs)); bin < bins; bin++) {
				const binFrom = from + bin * binUs;
				if (binFrom >= next) break;
				busy[bin] += Math.max(0, Math.min(next, binFrom + binUs) - Math.max(at, binFrom));
			}
		}
	}
	return busy.map((us) => us / Math.max(1, starts.length));
}
