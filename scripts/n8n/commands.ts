/** n8n commands for a home: `n8n <args>` in a bounded child, importing credentials and workflows. */
import { randomBytes, randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

import type { N8nHome } from './home';
import { getFreePort, runProcess, tail, type RunResult } from './processes';

export interface N8nCommandOptions {
	env?: Record<string, string>;
	onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
	timeoutMs?: number;
}

/**
 * The command line of `n8n <args>` for a home: this version's Node, the watchdog preloaded, n8n's bin.
 * For code that spawns n8n itself (servers, workers): spawn `command` with `args`, env `home.env`. `nodeArgs` go to
 * this n8n process's Node only (e.g. `--cpu-prof`), not to the task runner it starts.
 */
export function n8nCommandLine(home: Pick<N8nHome, 'dir' | 'nodeBin' | 'n8nEntry'>, args: string[], nodeArgs: readonly string[] = []): { command: string; args: string[] } {
	return { command: home.nodeBin, args: [...nodeArgs, '--require', path.join(home.dir, 'watchdog.js'), home.n8nEntry, ...args] };
}

/** Run `n8n <args>` for a home. A fresh task-runner broker port for every process. */
export async function runN8n(home: N8nHome, args: string[], opts: N8nCommandOptions = {}): Promise<RunResult> {
	const env: Record<string, string> = {
		N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
		...home.env,
		...(opts.env ?? {}),
		REAL_N8N_PARENT_PID: String(process.pid),
	};
	const line = n8nCommandLine(home, args);
	return await runProcess(line.command, line.args, {
		cwd: home.dir,
		env,
		timeoutMs: opts.timeoutMs ?? 120_000,
		onLine: opts.onLine,
	});
}

export interface N8nCredential {
	id?: string;
	name: string;
	type: string;
	/** Plain data: n8n encrypts it on import. */
	data: Record<string, unknown>;
	[key: string]: unknown;
}

async function importFile(home: N8nHome, kind: 'credentials' | 'workflow', content: unknown, opts: N8nCommandOptions): Promise<void> {
	const file = path.join(home.dir, `import-${kind}-${randomUUID()}.json`);
	await fsp.writeFile(file, JSON.stringify(content, null, 2), { mode: 0o600 });
	try {
		const result = await runN8n(home, [`import:${kind}`, `--input=${file}`], opts);
		// n8n 2.0.3 logs a harmless "Could not find workflow" stack trace on every workflow import
		// (it tries to deactivate the not yet existing workflow): judge by the success line instead.
		if (result.exitCode !== 0 || !/Successfully imported \d+/.test(result.stdout + result.stderr)) {
			throw new Error(
				`n8n import:${kind} failed (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}):\n${tail(result.stdout + result.stderr)}`,
			);
		}
	} finally {
		await fsp.rm(file, { force: true });
	}
}

/** Import credentials (plain `data`, encrypted by n8n). Ids are generated when missing; returns them. */
export async function importCredentials(home: N8nHome, creds: N8nCredential[], opts: N8nCommandOptions = {}): Promise<N8nCredential[]> {
	const withIds = creds.map((c) => ({ ...c, id: c.id ?? newN8nId() }));
	await importFile(home, 'credentials', withIds, opts);
	return withIds;
}

export interface WorkflowJson {
	id?: string;
	versionId?: string;
	name?: string;
	nodes: Array<{ id?: string; name: string; type: string; [key: string]: unknown }>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

function prepareWorkflow(workflow: WorkflowJson): WorkflowJson & { id: string } {
	const wf = {
		name: 'real-n8n workflow',
		active: false,
		settings: { executionOrder: 'v1' },
		...workflow,
		id: workflow.id ?? newN8nId(),
		versionId: workflow.versionId ?? randomUUID(),
		nodes: workflow.nodes.map((node) => ({ ...node, id: node.id ?? randomUUID() })),
	};
	if (wf.id.length > 16) throw new Error(`workflow id ${wf.id} is longer than 16 characters: n8n execute would not run it`);
	return wf;
}

/**
 * Import workflows in ONE n8n process (each n8n command costs ~5-8 s of startup). Sets id, versionId,
 * name, node ids, `active: false` and `settings.executionOrder: 'v1'` when missing. Returns the ids.
 */
export async function importWorkflows(home: N8nHome, workflows: WorkflowJson[], opts: N8nCommandOptions = {}): Promise<string[]> {
	const prepared = workflows.map(prepareWorkflow);
	await importFile(home, 'workflow', prepared, opts);
	return prepared.map((wf) => wf.id);
}

/** Import one workflow (see importWorkflows). Returns its id. */
export async function importWorkflow(home: N8nHome, workflow: WorkflowJson, opts: N8nCommandOptions = {}): Promise<string> {
	const [id] = await importWorkflows(home, [workflow], opts);
	return id;
}

/**
 * Rewrite node types written for N8N_CUSTOM_EXTENSIONS loading (`CUSTOM.<name>`) or bare node names
 * listed in `bareNames` to this home's package-named types (`<package>.<name>`).
 */
export function withPackageNodeTypes(home: Pick<N8nHome, 'nodeType'>, workflow: WorkflowJson, bareNames: string[] = []): WorkflowJson {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			if (node.type.startsWith('CUSTOM.')) return { ...node, type: home.nodeType(node.type.slice('CUSTOM.'.length)) };
			if (bareNames.includes(node.type)) return { ...node, type: home.nodeType(node.type) };
			return node;
		}),
	};
}

/** A random id like n8n's (16 alphanumerics; `n8n execute` wants ids of at most 16 characters). */
export function newN8nId(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = randomBytes(16);
	let id = '';
	for (const b of bytes) id += alphabet[b % alphabet.length];
	return id;
}
