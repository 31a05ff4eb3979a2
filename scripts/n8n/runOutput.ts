/** `n8n execute`: running an imported workflow and reading its run data out of n8n's output. */
import { runN8n, type N8nCommandOptions } from './commands';
import type { N8nHome } from './home';
import type { RunResult } from './processes';

export interface NodeRunError {
	message?: string;
	description?: string;
	name?: string;
	node?: { name?: string; type?: string };
	[key: string]: unknown;
}

export interface ExecuteResult extends RunResult {
	/** The parsed JSON n8n printed (IRun: { data: { resultData: { runData, error?, lastNodeExecuted } }, status, ... }), or null. */
	run: IRunLike | null;
	/** run.data.resultData.runData: node name -> task data per run. */
	runData: Record<string, TaskDataLike[]> | null;
	/** run.data.resultData.error, when the execution failed. */
	error: NodeRunError | null;
	/** true when n8n exited 0 and reported no execution error. */
	ok: boolean;
}

export interface TaskDataLike {
	startTime?: number;
	executionTime?: number;
	executionIndex?: number;
	executionStatus?: string;
	error?: NodeRunError;
	data?: { main?: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, BinaryLike> }> | null> };
	[key: string]: unknown;
}

export interface BinaryLike {
	fileName?: string;
	mimeType?: string;
	fileSize?: string;
	id?: string;
	data?: string;
	[key: string]: unknown;
}

export interface IRunLike {
	status?: string;
	finished?: boolean;
	data: { resultData: { runData: Record<string, TaskDataLike[]>; error?: NodeRunError; lastNodeExecuted?: string } };
	[key: string]: unknown;
}

/**
 * Find n8n's run JSON in its output. n8n prints it with JSON.stringify(data, null, 2) (on success via
 * `--rawOutput`, on failure through its logger at level info): it starts with a line `{` and ends with
 * a line `}` (both unindented; nested lines are indented, newlines inside strings are escaped), with
 * log lines before and after. Returns the last candidate that parses and looks like an IRun.
 */
export function parseRunOutput(output: string): IRunLike | null {
	const lines = output.split(/\r?\n/).map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').trimEnd());
	const ends: number[] = [];
	lines.forEach((line, i) => {
		if (line === '}') ends.push(i);
	});
	for (let start = lines.length - 1; start >= 0; start--) {
		if (lines[start] !== '{') continue;
		const end = ends.find((e) => e > start);
		if (end === undefined) continue;
		try {
			const parsed = JSON.parse(lines.slice(start, end + 1).join('\n')) as unknown;
			if (isRun(parsed)) return parsed;
		} catch {
			/* not JSON: keep looking */
		}
	}
	return null;
}

function isRun(value: unknown): value is IRunLike {
	if (!value || typeof value !== 'object') return false;
	const data = (value as { data?: { resultData?: { runData?: unknown } } }).data;
	return !!data?.resultData && typeof data.resultData.runData === 'object';
}

/** `n8n execute --id=ID --rawOutput`, parsing the run data out of stdout. Never throws for a failed run. */
export async function executeWorkflow(home: N8nHome, id: string, opts: N8nCommandOptions = {}): Promise<ExecuteResult> {
	const result = await runN8n(home, ['execute', `--id=${id}`, '--rawOutput'], { timeoutMs: 300_000, ...opts });
	const run = parseRunOutput(result.stdout) ?? parseRunOutput(result.stdout + '\n' + result.stderr);
	const runData = run?.data.resultData.runData ?? null;
	const error = run?.data.resultData.error ?? null;
	return { ...result, run, runData, error, ok: result.exitCode === 0 && !!run && !error };
}

/** The JSON items a node output (run `runIndex`, output `outputIndex`). */
export function nodeItems(
	result: Pick<ExecuteResult, 'runData'>,
	nodeName: string,
	runIndex = 0,
	outputIndex = 0,
): Array<{ json: Record<string, unknown>; binary?: Record<string, BinaryLike> }> {
	return result.runData?.[nodeName]?.[runIndex]?.data?.main?.[outputIndex] ?? [];
}

/** Node names in the order n8n executed them (by executionIndex, else startTime). */
export function executionOrder(result: Pick<ExecuteResult, 'runData'>): string[] {
	const entries: Array<{ name: string; index: number; start: number }> = [];
	for (const [name, runs] of Object.entries(result.runData ?? {})) {
		runs.forEach((task) =>
			entries.push({ name, index: task.executionIndex ?? Number.MAX_SAFE_INTEGER, start: task.startTime ?? 0 }),
		);
	}
	entries.sort((a, b) => a.index - b.index || a.start - b.start);
	return entries.map((e) => e.name);
}
