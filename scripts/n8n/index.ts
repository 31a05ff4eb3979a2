/**
 * Run workflows in a REAL headless n8n (2.0.3) with this package loaded as a community package; used
 * by the demo (`npm run demo`), the end-to-end tests and the screenshot script. One module per job:
 *
 * - install.ts        n8n installed once into ~/.cache (npm install with overrides, sqlite3 built)
 * - lock.ts           the cross-process lock around that install
 * - home.ts           a scratch n8n home (user folder, environment, watchdog) with this package in it
 * - packageInstall.ts the package installed as the Community Nodes UI does (npm pack, untar, npm install)
 * - commands.ts       `n8n <args>` for a home; importing credentials and workflows
 * - runOutput.ts      `n8n execute` and reading the run data out of its output
 * - processes.ts      bounded child processes in their own process group, killed on timeout and exit
 * - cli.ts            `npm run n8n:install`, and `run <workflow.json>` by hand
 */
export { ensureN8nInstalled, MIN_NODE_VERSION, N8N_OVERRIDES, N8N_VERSION, n8nCacheRoot, n8nInstallDir } from './install';
export { createN8nHome, type CreateN8nHomeOptions, type N8nHome } from './home';
export {
	importCredentials,
	importWorkflow,
	importWorkflows,
	newN8nId,
	runN8n,
	withPackageNodeTypes,
	type N8nCommandOptions,
	type N8nCredential,
	type WorkflowJson,
} from './commands';
export {
	executeWorkflow,
	executionOrder,
	nodeItems,
	parseRunOutput,
	type BinaryLike,
	type ExecuteResult,
	type IRunLike,
	type NodeRunError,
	type TaskDataLike,
} from './runOutput';
export { getFreePort, runProcess, type LogFn, type RunOptions, type RunResult } from './processes';
