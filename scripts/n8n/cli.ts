/**
 * CLI:  ts-node --transpile-only scripts/n8n/cli.ts install          (npm run n8n:install)
 *       ts-node --transpile-only scripts/n8n/cli.ts run <workflow.json> [--creds creds.json]
 *             [--package-dir DIR] [--output-dir DIR] [--without-package] [--keep] [--timeout SECONDS]
 */
import { promises as fsp } from 'node:fs';

import { importCredentials, importWorkflow, type N8nCredential, type WorkflowJson } from './commands';
import { createN8nHome } from './home';
import { ensureN8nInstalled } from './install';
import { executeWorkflow } from './runOutput';

function argValue(args: string[], flag: string): string | undefined {
	const i = args.indexOf(flag);
	if (i >= 0) return args[i + 1];
	const eq = args.find((a) => a.startsWith(`${flag}=`));
	return eq?.slice(flag.length + 1);
}

const USAGE =
	'usage: cli.ts install\n' +
	'       cli.ts run <workflow.json> [--creds creds.json] [--package-dir DIR] [--output-dir DIR]\n' +
	'              [--without-package] [--keep] [--timeout SECONDS]\n';

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv;
	if (command === 'install') return await install();
	if (command === 'run' && rest[0] && !rest[0].startsWith('--')) return await runWorkflowFile(rest[0], rest);
	process.stderr.write(USAGE);
	return 2;
}

async function install(): Promise<number> {
	const bin = await ensureN8nInstalled();
	process.stdout.write(`${bin}\n`);
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
			process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
			process.exit(1);
		},
	);
}
