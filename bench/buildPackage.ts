/** `npm run build` of this checkout: the n8n homes of the real-n8n runs install the package from dist/, as users do. */
import { REPO_ROOT } from '../scripts/examples';
import { npmCommand, npmEnv, runProcess } from '../scripts/n8n/processes';
import { log } from './format';

/** Builds the package, and returns how long it took, ms; `label` starts the log line (whose run builds). */
export async function buildPackage(label: string): Promise<number> {
	const started = Date.now();
	log(`${label}: npm run build (the n8n homes install the package from dist/, as users do) …`);
	const result = await runProcess(npmCommand(), ['run', 'build'], { cwd: REPO_ROOT, env: npmEnv(), timeoutMs: 300_000 });
	if (result.exitCode !== 0) throw new Error(`npm run build failed:\n${(result.stdout + result.stderr).slice(-3000)}`);
	return Date.now() - started;
}
