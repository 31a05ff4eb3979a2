/**
 * The example workflows in examples/ and what the demo (scripts/demo.ts) and the end-to-end test
 * (test/e2e) need to run them in a real n8n: where they write, which credential they use, and how to
 * read their results out of n8n's run data.
 *
 * The examples are used exactly as they ship, except for ONE value: the `outputFolder` field of their
 * "Settings" node (n8n 2.x only lets Read/Write Files from Disk write below N8N_RESTRICT_FILE_ACCESS_TO,
 * so the folder is the user's to choose). Their credential is referenced the way n8n exports do
 * (`{ id, name }`); n8n's import matches it to the one credential of type fluxApi named
 * EXAMPLE_CREDENTIAL_NAME when the id is unknown.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import type { ExecuteResult, WorkflowJson } from './n8n';

export const REPO_ROOT = path.resolve(__dirname, '..');
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/**
 * The name of the credential the examples reference: the name n8n gives a new FLUX API credential (its display
 * name without " API", then " account"; seen in n8n 2.0.3 and 2.41.1), so an import matches it by name.
 */
export const EXAMPLE_CREDENTIAL_NAME = 'FLUX account';
export const PACKAGE_NAME = 'n8n-nodes-flux-concurrent';
export const NODE_TYPES = {
	image: `${PACKAGE_NAME}.fluxImage`,
	submit: `${PACKAGE_NAME}.fluxConcurrentSubmit`,
	collect: `${PACKAGE_NAME}.concurrentCollect`,
} as const;

export interface ExampleInfo {
	key: 'minimal' | 'batch' | 'flux2';
	/** File name in examples/ (also the name of its output sub-folder). */
	file: string;
	title: string;
}

export const EXAMPLES: readonly ExampleInfo[] = [
	{ key: 'minimal', file: 'flux-3-image-concurrent.json', title: '2 submit nodes with different prompts → 1 collector (2 inputs)' },
	{ key: 'batch', file: 'flux-3-image-sku-batch.json', title: '45 SKUs with reference photos, Loop Over Items 30 at a time' },
	{ key: 'flux2', file: 'flux-2-product-photo-edit.json', title: 'FLUX.2 [pro] product-photo edit: 45 photos in, 45 edited JPEGs out, 30 at a time' },
];

export function exampleInfo(key: ExampleInfo['key']): ExampleInfo {
	const info = EXAMPLES.find((e) => e.key === key);
	if (!info) throw new Error(`unknown example ${key}`);
	return info;
}

/** Output sub-folder of an example (its file name without .json). */
export function exampleOutputName(info: ExampleInfo): string {
	return info.file.replace(/\.json$/, '');
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion?: number;
	position?: [number, number];
	parameters?: Record<string, unknown>;
	credentials?: Record<string, { id: string | null; name: string }>;
	[key: string]: unknown;
}

/** A workflow as n8n exports it (assignable to scripts/n8n's WorkflowJson). */
export interface ExampleWorkflow extends WorkflowJson {
	name: string;
	nodes: WorkflowNode[];
}

export function loadExample(info: ExampleInfo): ExampleWorkflow {
	return JSON.parse(readFileSync(path.join(EXAMPLES_DIR, info.file), 'utf8')) as ExampleWorkflow;
}

const deepCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A copy of `workflow` whose "Settings" node has `outputFolder` = folder (the one value we change). */
export function withOutputFolder(workflow: ExampleWorkflow, folder: string): ExampleWorkflow {
	const copy = deepCopy(workflow);
	const settings = copy.nodes.find((node) => node.name === 'Settings');
	const assignments = (settings?.parameters?.assignments as { assignments?: Array<{ name: string; value: unknown }> } | undefined)
		?.assignments;
	const field = assignments?.find((a) => a.name === 'outputFolder');
	if (!field) throw new Error(`${workflow.name}: no Settings node with an outputFolder field`);
	field.value = folder;
	return copy;
}

/** The fixed prompts of the submit nodes (minimal example), by node name. */
export function submitPrompts(workflow: ExampleWorkflow): Record<string, string> {
	const prompts: Record<string, string> = {};
	for (const node of workflow.nodes) {
		if (node.type === NODE_TYPES.submit) prompts[node.name] = String(node.parameters?.prompt ?? '');
	}
	return prompts;
}

/**
 * The same workflow with the serial FLUX 3 Image node instead of submit → collect: every
 * fluxConcurrentSubmit becomes fluxImage (same parameters and credential: they are twins), each
 * collector is removed, the serial nodes feed what the collector's Images output fed, and the
 * collector's Report branch is dropped. Used to MEASURE what the serial node takes for the same jobs.
 */
function withCacheRefresh(parameters: unknown): Record<string, unknown> {
	const params = (parameters ?? {}) as Record<string, unknown>;
	const options = (params.options ?? {}) as Record<string, unknown>;
	return { ...params, options: { ...options, cache: 'refresh' } };
}

export function serialVariant(workflow: ExampleWorkflow): ExampleWorkflow {
	const copy = deepCopy(workflow);
	copy.name = `${workflow.name} (serial FLUX 3 Image)`;
	delete copy.id;
	delete copy.versionId;
	type Conn = { node: string; type: string; index: number };
	const connections = copy.connections as Record<string, { main: Conn[][] }>;
	const collectors = new Set(copy.nodes.filter((n) => n.type === NODE_TYPES.collect).map((n) => n.name));
	const dropped = new Set<string>(collectors);
	for (const collector of collectors) {
		const [images = [], ...rest] = connections[collector]?.main ?? [];
		// Every node only reachable through the collector's other outputs (its Report branch) goes too.
		const stack = rest.flat().map((c) => c.node);
		while (stack.length) {
			const name = stack.pop()!;
			if (dropped.has(name)) continue;
			dropped.add(name);
			for (const c of (connections[name]?.main ?? []).flat()) stack.push(c.node);
		}
		// Whatever fed the collector now feeds what its Images output fed.
		for (const conn of Object.values(connections)) {
			for (const output of conn.main) {
				if (!output.some((c) => c.node === collector)) continue;
				const kept = output.filter((c) => c.node !== collector);
				output.splice(0, output.length, ...kept, ...images.map((c) => ({ ...c })));
			}
		}
	}
	// Node names stay (expressions may refer to them); only the type changes: the twins share parameters.
	// Cache: Refresh, so the serial node pays for the same jobs again instead of reading the results the
	// concurrent run just stored (the comparison times generation, not the result store).
	copy.nodes = copy.nodes
		.filter((node) => !dropped.has(node.name))
		.map((node) => (node.type === NODE_TYPES.submit ? { ...node, type: NODE_TYPES.image, parameters: withCacheRefresh(node.parameters) } : node));
	const newConnections: Record<string, { main: Conn[][] }> = {};
	for (const [from, conn] of Object.entries(connections)) {
		if (dropped.has(from)) continue;
		newConnections[from] = { main: conn.main.map((output) => output.filter((c) => !dropped.has(c.node))) };
	}
	copy.connections = newConnections;
	return copy;
}

// ---------------------------------------------------------------------------------------------
// Reading results out of n8n's run data
// ---------------------------------------------------------------------------------------------

export interface SlotRow {
	slot: number;
	input?: number;
	item?: number;
	status: string;
	jobId?: string;
	taskId?: string;
	error?: string;
	errorKind?: string;
	attempts?: number;
	timings?: { queuedMs?: number; runMs?: number; startedAt?: string; finishedAt?: string };
}

export interface CollectReport {
	total: number;
	counts: Record<string, number>;
	allSucceeded: boolean;
	slots: SlotRow[];
}

type Runs = NonNullable<ExecuteResult['runData']>;

/** Every run of every node of a type (in execution order). */
function runsOfType(runData: Runs, workflow: ExampleWorkflow, type: string) {
	const names = workflow.nodes.filter((n) => n.type === type).map((n) => n.name);
	return names
		.flatMap((name) => (runData[name] ?? []).map((task, runIndex) => ({ name, runIndex, task })))
		.sort((a, b) => (a.task.executionIndex ?? 0) - (b.task.executionIndex ?? 0));
}

/** The collector's Report (output 1) of each of its runs, in execution order (one per loop batch). */
export function collectReports(result: Pick<ExecuteResult, 'runData'>, workflow: ExampleWorkflow): CollectReport[] {
	if (!result.runData) return [];
	return runsOfType(result.runData, workflow, NODE_TYPES.collect)
		.map(({ task }) => task.data?.main?.[1]?.[0]?.json as unknown as CollectReport | undefined)
		.filter((report): report is CollectReport => !!report);
}

/** Total time n8n spent in the nodes of these types (sum of executionTime over every run), in ms. */
export function nodeTime(result: Pick<ExecuteResult, 'runData'>, workflow: ExampleWorkflow, types: string[]): number {
	if (!result.runData) return 0;
	return types
		.flatMap((type) => runsOfType(result.runData!, workflow, type))
		.reduce((sum, { task }) => sum + (task.executionTime ?? 0), 0);
}

/** Sum of every job's own run time (a worker taking it → downloaded): what serial generation would wait. */
export function sumOfRunTimes(reports: CollectReport[]): number {
	return reports.flatMap((r) => r.slots).reduce((sum, row) => sum + (row.timings?.runMs ?? 0), 0);
}

export function formatSeconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)} s`;
}

/** A compact table: slot, status, task, time (and batch and file when known). */
export function formatSlotTable(rows: Array<SlotRow & { file?: string; batch?: number }>, maxRows = Infinity): string[] {
	const columns: Array<{ title: string; right?: boolean; cell: (r: (typeof rows)[number]) => string }> = [];
	if (rows.some((r) => r.batch !== undefined)) columns.push({ title: 'batch', right: true, cell: (r) => String(r.batch ?? '') });
	columns.push(
		{ title: 'slot', right: true, cell: (r) => String(r.slot) },
		{ title: 'status', cell: (r) => r.status },
		{ title: 'task', cell: (r) => (r.taskId ? r.taskId.slice(0, 8) : '-') },
		{ title: 'time', right: true, cell: (r) => (r.timings?.runMs === undefined ? '-' : formatSeconds(r.timings.runMs)) },
	);
	if (rows.some((r) => r.file)) columns.push({ title: 'file', cell: (r) => r.file ?? '' });

	let shown = rows;
	let cut = -1;
	if (rows.length > maxRows) {
		cut = Math.max(1, maxRows - 2);
		shown = [...rows.slice(0, cut), ...rows.slice(rows.length - 2)];
	}
	const table = [columns.map((c) => c.title), ...shown.map((r) => columns.map((c) => c.cell(r)))];
	const widths = columns.map((_, col) => Math.max(...table.map((row) => row[col].length)));
	const lines = table.map((row) =>
		row
			.map((cell, col) => (columns[col].right ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
			.join('  ')
			.trimEnd(),
	);
	if (cut >= 0) lines.splice(1 + cut, 0, `… ${rows.length - shown.length} more rows …`);
	return lines;
}

export function formatCounts(report: Pick<CollectReport, 'counts' | 'total'>): string {
	const c = report.counts;
	return `${report.total} slots: ${c.success ?? 0} success, ${c.failed ?? 0} failed, ${c.skipped_error ?? 0} skipped_error, ${c.cancelled ?? 0} cancelled`;
}

// ---------------------------------------------------------------------------------------------
// The FLUX 3 Video example (its own list: the image examples' checks and serial variant do not apply)
// ---------------------------------------------------------------------------------------------

export const VIDEO_NODE_TYPES = {
	video: `${PACKAGE_NAME}.fluxVideo`,
	submit: `${PACKAGE_NAME}.fluxVideoConcurrentSubmit`,
	collect: `${PACKAGE_NAME}.concurrentCollectVideos`,
} as const;

export const VIDEO_EXAMPLE = {
	file: 'flux-3-video-sku-clips.json',
	title: 'product photos → a 5-second image-to-video clip per SKU, collected in order',
	collector: 'Collect Clips',
	writer: 'Write Clips',
} as const;

/** The video example as it ships. */
export function loadVideoExample(): ExampleWorkflow {
	return JSON.parse(readFileSync(path.join(EXAMPLES_DIR, VIDEO_EXAMPLE.file), 'utf8')) as ExampleWorkflow;
}

/** The video collector's Report (output 1), or undefined when it did not run. */
export function videoReport(result: Pick<ExecuteResult, 'runData'>): CollectReport | undefined {
	return result.runData?.[VIDEO_EXAMPLE.collector]?.[0]?.data?.main?.[1]?.[0]?.json as unknown as CollectReport | undefined;
}

// ---------------------------------------------------------------------------------------------
// The FLUX 3 Video drafts example: drafts → a choice → Enhance a Draft for the chosen ones
// ---------------------------------------------------------------------------------------------

export const DRAFTS_EXAMPLE = {
	file: 'flux-3-video-drafts.json',
	title: 'ten product-spot drafts, a choice, then Enhance a Draft for the chosen ones (full price only for what is kept)',
	drafts: 'Collect Drafts',
	finals: 'Collect Finals',
	ideas: 'Ideas',
} as const;

/** The drafts example as it ships. */
export function loadDraftsExample(): ExampleWorkflow {
	return JSON.parse(readFileSync(path.join(EXAMPLES_DIR, DRAFTS_EXAMPLE.file), 'utf8')) as ExampleWorkflow;
}
