/**
 * CLI:  ts-node --transpile-only scripts/n8n/cli.ts install [--version V | --all]   (npm run n8n:install)
 *       ts-node --transpile-only scripts/n8n/cli.ts versions        (the matrix's n8n versions, one a line)
 *       ts-node --transpile-only scripts/n8n/cli.ts run <workflow.json> [--creds creds.json]
 *             [--package-dir DIR] [--output-dir DIR] [--without-package] [--keep] [--timeout SECONDS] [--n8n-version V]
 */
import { promises as fsp } from 'node:fs';

import { importCredentials, importWorkflow, type N8nCredential, type WorkflowJson } from './commands';
import { createN8nHome } from './home';
import { ensureN8nRuntime } from './install';
import { executeWorkflow } from './runOutput';
import { N8N_MATRIX, selectedN8nVersion } from './versions';

function argValue(args: string[], flag: string): string | undefined {
	const i = args.indexOf(flag);
	if (i >= 0) return args[i + 1];
	const eq = args.find((a) => a.startsWith(`${flag}=`));
	return eq?.slice(flag.length + 1);
}

const USAGE =
	'usage: cli.ts install [--version V | --all]   (default: FLUX_E2E_N8N, else the oldest)\n' +
	'       cli.ts versions\n' +
	'       cli.ts run <workflow.json> [--creds creds.json] [--package-dir DIR] [--output-dir DIR]\n' +
	'              [--without-package] [--keep] [--timeout SECONDS] [--n8n-version V]\n';

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv;
	if (command === 'install') return await install(rest);
	if (command === 'versions') {
		process.stdout.write(N8N_MATRIX.map((entry) => `${entry.n8n}\n`).join(''));
		return 0;
	}
	if (command === 'run' && rest[0] && !rest[0].startsWith('--')) return await runWorkflowFile(rest[0], rest);
	process.stderr.write(USAGE);
	return 2;
}

/** Install one version (or all), printing each one's n8n bin, Node and how long making it ready took. */
async function install(args: string[]): Promise<number> {
	const versions = args.includes('--all') ? N8N_MATRIX.map((entry) => entry.n8n) : [argValue(args, '--version') ?? selectedN8nVersion().n8n];
	for (const version of versions) {
		const started = Date.now();
		const runtime = await ensureN8nRuntime({ version });
		const seconds = Math.round((Date.now() - started) / 1000);
		process.stdout.write(`n8n ${runtime.n8nVersion} on Node ${runtime.nodeVersion}: ${runtime.n8nBin} (ready in ${seconds}s)\n`);
	}
	return 0;
}

/** Import the workflow (and credentials) into a scratch home, execute it, print the run JSON. */
async function runWorkflowFile(file: string, args: string[]): Promise<number> {
	const workflow = JSON.parse(await fsp.readFile(file, 'utf8')) as WorkflowJson;
	const credsFile = argValue(args, '--creds');
	const timeout = Number(argValue(args, '--timeout') ?? 300);
	const home = await createN8nHome({
		packageDir: argValue(args, '--package-dir') ?? process.cwd(),
		outputDir: argValue(args, '--output-dir'),
		keep: args.includes('--keep'),
		withoutPackage: args.includes('--without-package'),
		n8nVersion: argValue(args, '--n8n-version'),
	});
	try {
		if (credsFile) await importCredentials(home, JSON.parse(await fsp.readFile(credsFile, 'utf8')) as N8nCredential[]);
		const id = await importWorkflow(home, workflow);
		const result = await executeWorkflow(home, id, {
			timeoutMs: timeout * 1000,
			// Echo n8n's log lines, not the run JSON (indented lines and the braces around them).
			onLine: (line) => {
				if (!/^(\s|\{$|\}$)/.test(line) && line !== '') process.stderr.write(`  | ${line}\n`);
			},
		});
		process.stdout.write(JSON.stringify(result.run, null, 2) + '\n');
		process.stderr.write(
			`[n8n] exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : `FAILED: ${result.error?.message ?? 'no run data'}`}\n`,
		);
		if (args.includes('--keep')) process.stderr.write(`[n8n] kept ${home.dir}\n`);
		return result.ok ? 0 : 1;
	} finally {
		await home.cleanup();
	}
}

if (require.main === module) {
	main(process.argv.slice(2)).then(
		(code) => process.exit(code),
		(error: unknown) => {
			process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
			process.exit(1);
		},
	);
}
