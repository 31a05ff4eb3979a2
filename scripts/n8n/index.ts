/**
 * Run workflows in a REAL headless n8n with this package loaded as a community package; used by the
 * demo (`npm run demo`), the end-to-end tests and the screenshot script. The n8n version comes from
 * the support matrix (versions.ts), picked with FLUX_E2E_N8N (default: the oldest, 2.0.3); each
 * version runs on its own Node.js. One module per job:
 *
 * - versions.ts       the support matrix (n8n version -> Node.js), FLUX_E2E_N8N
 * - nodeRuntime.ts    that Node.js: the machine's, or an exact one installed from npm into ~/.cache
 * - install.ts        n8n installed once per version into ~/.cache (npm install with overrides, sqlite3 built)
 * - lock.ts           the cross-process lock around that install
 * - home.ts           a scratch n8n home (user folder, environment, watchdog) with this package in it
 * - packageInstall.ts the package installed as the Community Nodes UI does (npm pack, untar, npm install)
 * - commands.ts       `n8n <args>` for a home; importing credentials and workflows
 * - runOutput.ts      `n8n execute` and reading the run data out of its output
 * - processes.ts      bounded child processes in their own process group, killed on timeout and exit
 * - cli.ts            `npm run n8n:install`, and `run <workflow.json>` by hand
 */
export {
	ensureN8nInstalled,
	ensureN8nRuntime,
	MIN_NODE_VERSION,
	N8N_OVERRIDES,
	N8N_VERSION,
	n8nCacheRoot,
	n8nInstallDir,
	type EnsureN8nOptions,
	type N8nRuntime,
} from './install';
export {
	compareVersions,
	N8N_MATRIX,
	N8N_VERSION_ENV,
	NEWEST_N8N,
	OLDEST_N8N,
	n8nVersionSpec,
	selectedN8nVersion,
	type N8nVersionSpec,
} from './versions';
export { ensureNodeRuntime, type NodeRuntime } from './nodeRuntime';
export { createN8nHome, type CreateN8nHomeOptions, type N8nHome } from './home';
export {
	importCredentials,
	importWorkflow,
	importWorkflows,
	n8nCommandLine,
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
