/**
 * npm run demo: run the example workflows (examples/) in a REAL n8n with this package installed as a
 * community package, against the bundled relay simulator on 127.0.0.1 (or a real FLUX API), writing
 * the images to ./out, then print each collector's report and the time beside the serial node's.
 *
 *   npm run demo                          both examples against the simulator (about 2 s per image)
 *   npm run demo -- --serial              also run the same jobs through the serial FLUX 3 Image node and time it
 *   npm run demo -- --only minimal|batch|video|flux2  one example (video: product photos → a clip per SKU; flux2: FLUX.2 edits)
 *   npm run demo -- --out DIR --latency MS --jitter MS --keep
 *   npm run demo -- --n8n newest          on the newest n8n of the support matrix (or an exact version;
 *                                         FLUX_E2E_N8N=2.41.1 npm run demo does the same)
 *
 *   FLUX_API_KEY=... [FLUX_BASE_URL=https://api.bfl.ai] [FLUX_API_STYLE=bfl|relay] npm run demo
 *       against that API instead (paid jobs: only the 2-image example unless --batch is given).
 *       The key is passed to n8n as a credential and never printed.
 *
 * `npm run demo` builds first (the package n8n loads is dist/, packed like `npm pack`).
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import * as path from 'node:path';

import { startRelaySimulator, type RelaySimulator } from '../relay-sim';
import {
	EXAMPLE_CREDENTIAL_NAME,
	EXAMPLES,
	NODE_TYPES,
	REPO_ROOT,
	VIDEO_EXAMPLE,
	collectReports,
	exampleOutputName,
	formatCounts,
	formatSeconds,
	formatSlotTable,
	loadExample,
	nodeTime,
	serialVariant,
	sumOfRunTimes,
	withOutputFolder,
	type ExampleInfo,
	type ExampleWorkflow,
	type SlotRow,
} from './examples';
import { runVideoExample } from './demoVideo';
import {
	N8N_MATRIX,
	N8N_VERSION_ENV,
	createN8nHome,
	ensureN8nInstalled,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	n8nInstallDir,
	nodeItems,
	selectedN8nVersion,
	type ExecuteResult,
	type N8nHome,
} from './n8n';

const HELP = `npm run demo [-- options]

Runs examples/*.json in a real n8n (the oldest of the support matrix unless --n8n says; installed once
into ~/.cache) against the bundled relay simulator on 127.0.0.1, writes the images to ./out and prints
the collector's report.

  --only minimal|batch|video|flux2   run one example (default: the first three; with FLUX_API_KEY: minimal only)
  --batch                with FLUX_API_KEY: also run the 45-image batch (45 paid jobs)
  --video                with FLUX_API_KEY: also run the video example (4 paid 5-second clips)
  --serial               also run the same jobs through the serial FLUX 3 Image node and time it
  --out DIR              output folder (default ./out)
  --latency MS           simulator: time from submit to ready per image (default 2000)
  --jitter MS            simulator: latency varies by ± this (default 500)
  --keep                 keep the scratch n8n home (printed at the end)
  --n8n VERSION          the n8n to run: ${N8N_MATRIX.map((entry) => entry.n8n).join(', ')}, oldest or newest
                         (default: ${N8N_VERSION_ENV}, else the oldest); the first run of a version installs it

Environment: FLUX_API_KEY (use a real API instead of the simulator), FLUX_BASE_URL
(default https://api.bfl.ai), FLUX_API_STYLE (bfl or relay; default bfl for api.bfl.ai, else relay).
`;

interface Args {
	only?: ExampleInfo['key'] | 'video';
	batch: boolean;
	video: boolean;
	serial: boolean;
	out: string;
	latencyMs: number;
	jitterMs: number;
	keep: boolean;
	/** The n8n version to run (exact, from the support matrix). */
	n8n: string;
}

class UsageError extends Error {}

/** The exact n8n version `wanted` (a version of the matrix, oldest or newest) names; undefined: FLUX_E2E_N8N's. */
function n8nVersion(wanted: string | undefined): string {
	try {
		return selectedN8nVersion(wanted === undefined ? process.env : { [N8N_VERSION_ENV]: wanted }).n8n;
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		throw new UsageError(wanted === undefined ? message : message.replace(`${N8N_VERSION_ENV}=`, '--n8n '));
	}
}

function parseArgs(argv: string[]): Args {
	const args: Args = { batch: false, video: false, serial: false, out: 'out', latencyMs: 2000, jitterMs: 500, keep: false, n8n: n8nVersion(undefined) };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const value = () => {
			const v = inline ?? argv[++i];
			if (v === undefined) throw new UsageError(`${flag} needs a value`);
			return v;
		};
		const number = () => {
			const v = Number(value());
			if (!Number.isFinite(v) || v < 0) throw new UsageError(`${flag} must be a non-negative number`);
			return v;
		};
		switch (flag) {
			case '--help':
			case '-h':
				throw new UsageError('');
			case '--only': {
				const v = value();
				if (v !== 'minimal' && v !== 'batch' && v !== 'video' && v !== 'flux2') throw new UsageError('--only must be minimal, batch, video or flux2');
				args.only = v;
				break;
			}
			case '--video':
				args.video = true;
				break;
			case '--batch':
				args.batch = true;
				break;
			case '--serial':
				args.serial = true;
				break;
			case '--keep':
				args.keep = true;
				break;
			case '--n8n':
				args.n8n = n8nVersion(value());
				break;
			case '--out':
				args.out = value();
				break;
			case '--latency':
				args.latencyMs = number();
				break;
			case '--jitter':
				args.jitterMs = number();
				break;
			default:
				throw new UsageError(`unknown argument ${argv[i]}`);
		}
	}
	return args;
}

// ---------------------------------------------------------------------------------------------
// Output: everything goes through say(), which removes the API key whatever happens.
// ---------------------------------------------------------------------------------------------

const secrets: string[] = [];
const isTty = Boolean(process.stdout.isTTY);

function scrub(text: string): string {
	let out = text;
	for (const secret of secrets) if (secret) out = out.split(secret).join('***');
	return out;
}

let tickerLine = false;
function say(line = ''): void {
	if (tickerLine) {
		process.stdout.write('\r\x1b[2K');
		tickerLine = false;
	}
	process.stdout.write(`${scrub(line)}\n`);
}

/** A progress line: rewritten in place on a terminal, printed every few seconds otherwise. */
function startTicker(render: () => string, everyMs = isTty ? 500 : 5000): { stop(): void } {
	const timer = setInterval(() => {
		const line = scrub(render());
		if (isTty) {
			process.stdout.write(`\r\x1b[2K${line.slice(0, (process.stdout.columns || 120) - 1)}`);
			tickerLine = true;
		} else {
			process.stdout.write(`${line}\n`);
		}
	}, everyMs);
	return {
		stop() {
			clearInterval(timer);
			if (tickerLine) {
				process.stdout.write('\r\x1b[2K');
				tickerLine = false;
			}
		},
	};
}

function countFiles(folder: string, extension?: string): number {
	try {
		return readdirSync(folder).filter((f) => !extension || f.endsWith(extension)).length;
	} catch {
		return 0;
	}
}

function rel(file: string): string {
	const r = path.relative(process.cwd(), file);
	return r.startsWith('..') ? file : r;
}

// ---------------------------------------------------------------------------------------------
// Target API: the simulator, or a real API from the environment
// ---------------------------------------------------------------------------------------------

interface Target {
	kind: 'simulator' | 'api';
	credential: { apiStyle: 'relay' | 'bfl'; baseUrl: string; apiKey: string };
	describe: string;
	sim?: RelaySimulator;
}

async function chooseTarget(args: Args): Promise<Target> {
	const apiKey = process.env.FLUX_API_KEY?.trim();
	if (apiKey) {
		secrets.push(apiKey, process.env.FLUX_API_KEY ?? '');
		const baseUrl = (process.env.FLUX_BASE_URL?.trim() || 'https://api.bfl.ai').replace(/\/+$/, '');
		const styleEnv = process.env.FLUX_API_STYLE?.trim();
		if (styleEnv && styleEnv !== 'bfl' && styleEnv !== 'relay') throw new UsageError('FLUX_API_STYLE must be bfl or relay');
		let host: string;
		try {
			host = new URL(baseUrl).hostname;
		} catch {
			throw new UsageError('FLUX_BASE_URL must be an http(s) URL, e.g. https://api.bfl.ai');
		}
		const apiStyle = (styleEnv as 'bfl' | 'relay' | undefined) ?? (host === 'bfl.ai' || host.endsWith('.bfl.ai') ? 'bfl' : 'relay');
		return {
			kind: 'api',
			credential: { apiStyle, baseUrl, apiKey },
			describe: `${baseUrl} (API style ${apiStyle}; key from FLUX_API_KEY, not shown)`,
		};
	}
	const min = Math.max(0, args.latencyMs - args.jitterMs);
	const max = args.latencyMs + args.jitterMs;
	const sim = await startRelaySimulator({ host: '127.0.0.1', latencyMs: max > min ? { min, max, seed: 'demo' } : min });
	return {
		kind: 'simulator',
		credential: { apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey },
		describe: `relay simulator at ${sim.url} (loopback; ${formatSeconds(min)}–${formatSeconds(max)} from submit to ready per image)`,
		sim,
	};
}

/** A progress fragment for the simulator: jobs of this run only (the log counts since start). */
function simProgress(sim: RelaySimulator | undefined): () => string {
	if (!sim) return () => '';
	const accepted = () => sim.log.submits.filter((s) => s.status >= 200 && s.status < 300).length;
	const before = { submitted: accepted(), downloads: sim.log.downloads };
	return () =>
		` · API: ${accepted() - before.submitted} submitted, ${sim.activeTasks()} generating, ${sim.log.downloads - before.downloads} downloaded`;
}

// ---------------------------------------------------------------------------------------------
// Running one example
// ---------------------------------------------------------------------------------------------

interface Prepared {
	info: ExampleInfo;
	workflow: ExampleWorkflow;
	folder: string;
	id?: string;
	serial?: { workflow: ExampleWorkflow; folder: string; id?: string };
}

interface RunSummary {
	ok: boolean;
	images: number;
	concurrentMs: number;
	serialEstimateMs: number;
	serialMeasuredMs?: number;
}

function failureDetails(result: ExecuteResult): string[] {
	const lines = [
		`n8n exit code ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}`,
		result.error ? `error in node "${result.error.node?.name ?? '?'}": ${result.error.message ?? ''}` : 'no error reported by n8n',
	];
	if (result.error?.description) lines.push(String(result.error.description));
	if (!result.run) lines.push('--- n8n output (tail) ---', ...(result.stdout + result.stderr).trimEnd().split('\n').slice(-30));
	return lines;
}

async function executeWithProgress(
	home: N8nHome,
	id: string,
	label: string,
	folder: string,
	target: Target,
): Promise<ExecuteResult> {
	const started = Date.now();
	const jobs = simProgress(target.sim);
	const ticker = startTicker(
		() => `  ${label}: running ${formatSeconds(Date.now() - started)}${jobs()} · ${countFiles(folder)} files written`,
	);
	try {
		return await executeWorkflow(home, id, { timeoutMs: target.kind === 'api' ? 45 * 60_000 : 10 * 60_000 });
	} finally {
		ticker.stop();
	}
}

async function runExample(home: N8nHome, prepared: Prepared, target: Target, args: Args): Promise<RunSummary> {
	const { info, workflow, folder } = prepared;
	say();
	say(`▶ examples/${info.file}: ${info.title}`);
	const result = await executeWithProgress(home, prepared.id!, 'concurrent', folder, target);
	if (!result.ok) {
		say(`  FAILED after ${formatSeconds(result.durationMs)}`);
		for (const line of failureDetails(result)) say(`    ${line}`);
		return { ok: false, images: 0, concurrentMs: 0, serialEstimateMs: 0 };
	}
	say(`  n8n execution finished in ${formatSeconds(result.durationMs)} (one \`n8n execute\` process, including its start-up)`);

	const reports = collectReports(result, workflow);
	const rows = slotRows(result, reports);
	say();
	for (const line of formatSlotTable(rows, 14)) say(`  ${line}`);
	say();
	reports.forEach((report, batch) =>
		say(`  report${reports.length > 1 ? ` (batch ${batch + 1})` : ''}: ${formatCounts(report)}`),
	);
	const filesWritten = allFilesWritten(rows, folder);
	const ok = reports.length > 0 && reports.every((r) => r.allSucceeded) && filesWritten;

	const concurrentMs = nodeTime(result, workflow, [NODE_TYPES.submit, NODE_TYPES.collect]);
	const serialEstimateMs = sumOfRunTimes(reports);
	const summary: RunSummary = { ok, images: rows.length, concurrentMs, serialEstimateMs };
	say();
	say(`  concurrent, measured:  ${formatSeconds(concurrentMs).padStart(7)}  time n8n spent in the Submit + Collect nodes for ${rows.length} images`);
	say(
		`  serial, estimated:     ${formatSeconds(serialEstimateMs).padStart(7)}  sum of the ${rows.length} jobs' own run times (submit → download), i.e. one FLUX 3 Image call after another`,
	);
	if (args.serial && prepared.serial?.id) await runSerialVariant(home, prepared.serial, target, summary);
	if (concurrentMs > 0) {
		const serialMs = summary.serialMeasuredMs ?? serialEstimateMs;
		say(`  → ${(serialMs / concurrentMs).toFixed(1)}× faster than serial (${summary.serialMeasuredMs ? 'measured' : 'estimated'})`);
	}
	if (!ok) say('  NOT every slot succeeded: see the table above and the report.json');
	return summary;
}

type DemoSlotRow = SlotRow & { file?: string; batch?: number };

/** One row per slot of every report (batch), with the file Write Images wrote for it. */
function slotRows(result: ExecuteResult, reports: ReturnType<typeof collectReports>): DemoSlotRow[] {
	const rows: DemoSlotRow[] = [];
	const writeRuns = result.runData?.['Write Images']?.length ?? 0;
	reports.forEach((report, batch) => {
		const written = batch < writeRuns ? nodeItems(result, 'Write Images', batch) : [];
		report.slots.forEach((slot, i) => {
			const fileName = written[i]?.json.fileName;
			rows.push({
				...slot,
				...(reports.length > 1 ? { batch: batch + 1 } : {}),
				...(typeof fileName === 'string' ? { file: rel(fileName) } : {}),
			});
		});
	});
	return rows;
}

/** Every slot's file exists (says which do not); prints how many images the folder holds. */
function allFilesWritten(rows: readonly DemoSlotRow[], folder: string): boolean {
	const missing = rows.filter((r) => !r.file || !existsSync(path.resolve(r.file)));
	if (missing.length > 0) say(`  MISSING FILES for slots ${missing.map((r) => (r.batch ? `${r.batch}/${r.slot}` : r.slot)).join(', ')}`);
	const pngs = countFiles(folder, '.png') + countFiles(folder, '.jpg') + countFiles(folder, '.jpeg') + countFiles(folder, '.webp');
	say(`  wrote ${pngs} images and report.json to ${rel(folder)}/`);
	return missing.length === 0;
}

/** `--serial`: the same jobs through the serial FLUX 3 Image node, timed as n8n measured it. */
async function runSerialVariant(home: N8nHome, serial: NonNullable<Prepared['serial']>, target: Target, summary: RunSummary): Promise<void> {
	const serialResult = await executeWithProgress(home, serial.id!, 'serial FLUX 3 Image', serial.folder, target);
	if (!serialResult.ok) {
		say('  serial variant FAILED');
		for (const line of failureDetails(serialResult)) say(`    ${line}`);
		summary.ok = false;
		return;
	}
	summary.serialMeasuredMs = nodeTime(serialResult, serial.workflow, [NODE_TYPES.image]);
	say(
		`  serial, measured:      ${formatSeconds(summary.serialMeasuredMs).padStart(7)}  time n8n spent in the serial FLUX 3 Image node(s), same jobs (images in ${rel(serial.folder)}/)`,
	);
}

async function main(): Promise<number> {
	const args = parseArgs(process.argv.slice(2));
	const started = Date.now();
	const target = await chooseTarget(args);
	// The FLUX.2 example runs on request (--only flux2): the demo's figures are FLUX 3 Image's.
	const selected = EXAMPLES.filter((e) =>
		args.only ? e.key === args.only : e.key !== 'flux2' && (target.kind === 'simulator' || e.key === 'minimal' || args.batch),
	);
	const out = path.resolve(args.out);
	printPlan(args, target, selected);

	say();
	say('[1/4] n8n');
	const installStarted = Date.now();
	await ensureN8nInstalled({ log: (line) => say(`      ${line}`), version: args.n8n });
	say(`      n8n ${args.n8n} ready (${formatSeconds(Date.now() - installStarted)})`);

	say('[2/4] n8n home with this package installed as a community package (npm pack → ~/.n8n/nodes)');
	const prepared = prepareExamples(selected, out, args.serial);
	const homeStarted = Date.now();
	const home = await createN8nHome({
		packageDir: REPO_ROOT,
		outputDir: out, // N8N_RESTRICT_FILE_ACCESS_TO: n8n may write here and nowhere else
		keep: args.keep,
		log: (line) => say(`      ${line}`),
		n8nVersion: args.n8n,
	});
	say(`      ${home.dir} (${formatSeconds(Date.now() - homeStarted)})`);

	try {
		say(`[3/4] import the credential "${EXAMPLE_CREDENTIAL_NAME}" and ${prepared.length} example workflow(s)${wantsVideo(args, target) ? ' (the video example follows on its own)' : ''}`);
		const importStarted = Date.now();
		await importAll(home, target, prepared);
		say(`      done (${formatSeconds(Date.now() - importStarted)}); each example's Settings → outputFolder points into ${rel(out)}/`);

		say('[4/4] run');
		const summaries: RunSummary[] = [];
		for (const p of prepared) summaries.push(await runExample(home, p, target, args));
		const video = wantsVideo(args, target) ? await runVideoExample(home, out, say, target.kind === 'api' ? 60 * 60_000 : 10 * 60_000) : undefined;
		if (video) say(`  ${video.ok ? 'OK' : 'FAILED'}: ${video.clips} clips`);
		const ok = summaries.every((s) => s.ok) && (video?.ok ?? true);
		printSummary(ok, summaries, out, started, target, video?.clips);
		if (args.keep) say(`  n8n home kept: ${home.dir}`);
		return ok ? 0 : 1;
	} finally {
		await home.cleanup();
		await target.sim?.close();
	}
}

/** The video example runs by default against the simulator, with a real key only when asked (paid clips). */
function wantsVideo(args: Args, target: Target): boolean {
	return args.only ? args.only === 'video' : target.kind === 'simulator' || args.video;
}

function printPlan(args: Args, target: Target, selected: typeof EXAMPLES): void {
	say('n8n-nodes-flux-concurrent demo');
	say(`  n8n      ${args.n8n}, real and headless (cache: ${n8nInstallDir(args.n8n)})`);
	say(`  API      ${target.describe}`);
	say(`  output   ${rel(path.resolve(args.out))}/`);
	const files = [...selected.map((e) => e.file), ...(wantsVideo(args, target) ? [VIDEO_EXAMPLE.file] : [])];
	say(`  examples ${files.join(', ')}${args.serial ? ' (and their serial variants)' : ''}`);
	if (target.kind === 'api' && !args.only && !args.video) say('           (the video example costs 4 paid clips: add --video to run it)');
	if (target.kind === 'api' && !args.only && !args.batch) say('           (the 45-image batch costs 45 paid jobs: add --batch to run it)');
}

/** Each example pointed at its own fresh output folder (Read/Write Files from Disk does not create folders). */
function prepareExamples(selected: typeof EXAMPLES, out: string, serial: boolean): Prepared[] {
	mkdirSync(out, { recursive: true });
	const prepared: Prepared[] = selected.map((info) => {
		const workflow = loadExample(info);
		const folder = path.join(realpathSync(out), exampleOutputName(info));
		const serialFolder = path.join(realpathSync(out), 'serial', exampleOutputName(info));
		return {
			info,
			workflow: withOutputFolder(workflow, folder),
			folder,
			...(serial ? { serial: { workflow: withOutputFolder(serialVariant(workflow), serialFolder), folder: serialFolder } } : {}),
		};
	});
	for (const p of prepared) {
		for (const folder of [p.folder, p.serial?.folder]) {
			if (!folder) continue;
			rmSync(folder, { recursive: true, force: true });
			mkdirSync(folder, { recursive: true });
		}
	}
	return prepared;
}

/** The credential and every workflow (examples and serial variants) in one import each; sets their ids. */
async function importAll(home: N8nHome, target: Target, prepared: Prepared[]): Promise<void> {
	await importCredentials(home, [{ name: EXAMPLE_CREDENTIAL_NAME, type: 'fluxApi', data: { ...target.credential } }]);
	const workflows = prepared.flatMap((p) => [p.workflow, ...(p.serial ? [p.serial.workflow] : [])]);
	const ids = await importWorkflows(home, workflows);
	let next = 0;
	for (const p of prepared) {
		p.id = ids[next++];
		if (p.serial) p.serial.id = ids[next++];
	}
}

function printSummary(ok: boolean, summaries: readonly RunSummary[], out: string, started: number, target: Target, clips?: number): void {
	say();
	const videos = clips === undefined ? '' : ` and ${clips} clips`;
	say(
		`${ok ? 'OK' : 'FAILED'}: ${summaries.reduce((n, s) => n + s.images, 0)} images${videos} in ${rel(out)}/ · demo wall time ${formatSeconds(Date.now() - started)}`,
	);
	if (target.sim) {
		const { log } = target.sim;
		say(
			`  simulator: ${log.submits.length} submits, ${log.polls} polls, ${log.downloads} downloads, at most ${log.peakActiveTasks} jobs generating at once${log.credentialOnDownload ? ', WARNING: a credential reached a download URL' : ''}`,
		);
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		if (error instanceof UsageError) {
			if (error.message) process.stderr.write(`demo: ${error.message}\n\n`);
			process.stderr.write(HELP);
			process.exit(error.message ? 2 : 0);
		}
		process.stderr.write(`${scrub(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
		process.exit(1);
	},
);
