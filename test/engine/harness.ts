/**
 * In-process engine harness: runs a workflow through n8n's REAL execution engine
 * (n8n-core's `WorkflowExecute`, the same class the n8n server uses) from jest.
 *
 * What it sets up (see README.md next to this file for the why):
 *  - the @n8n/di Container: a silent Logger, an ErrorReporter, a stub InstanceSettings (no
 *    ~/.n8n access), and a BinaryDataService in 'default' (in-memory, base64 in the item) or
 *    'filesystem' (temp dir) mode;
 *  - a `Workflow` with an INodeTypes provider built from the node types you pass (versioned
 *    node types are resolved per node.typeVersion);
 *  - `IWorkflowExecuteAdditionalData` with an in-memory ICredentialsHelper, lifecycle hooks
 *    that record the node execution order, and stubs for everything else;
 *  - a tiny manual trigger node type (`MANUAL_TRIGGER_TYPE`) emitting `triggerItems`.
 *
 * Cancellation: `signal` is wired to `PCancelable.cancel()` of the run, which is exactly what
 * n8n's "stop execution" does; that aborts WorkflowExecute's internal AbortController, whose
 * signal is what nodes get from `this.getExecutionCancelSignal()`.
 */
// n8n-core → @langchain/core (AI "node as tool" support) → require('p-retry'), which is ESM-only
// (p-retry@7). Node ≥20.19 can require() ESM, jest's module loader cannot, so loading n8n-core
// under jest dies with "Cannot use import statement outside a module". Nothing the harness runs
// uses langchain's retrying AsyncCaller, so a minimal CJS stand-in is enough. (ts-jest hoists this
// above the imports; it applies to every test file that imports the harness.)
jest.mock('p-retry', () => {
	class AbortError extends Error {}
	const pRetry = async (fn: (attempt: number) => unknown) => await fn(1);
	return { __esModule: true, default: pRetry, AbortError };
});

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	BinaryDataService,
	ErrorReporter,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	InstanceSettings,
	WorkflowExecute,
} from 'n8n-core';
import type { BinaryDataConfig } from 'n8n-core';
// Not re-exported from n8n-core's index; both start a *ref'd* setInterval in their constructor
// (created lazily via Container.get on the first node execution), which keeps jest from exiting.
import { ScheduledTaskManager } from 'n8n-core/dist/execution-engine/scheduled-task-manager';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	deepCopy,
} from 'n8n-workflow';
import type {
	ExecutionError,
	IBinaryData,
	IConnections,
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	ICredentials,
	IDataObject,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IRunData,
	ITaskData,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';

// ---------------------------------------------------------------------------------------------
// Container / process-wide setup
// ---------------------------------------------------------------------------------------------

export type BinaryDataMode = 'default' | 'filesystem';

export interface LogEntry {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	meta?: unknown;
}

/** Everything n8n logs through its DI Logger (incl. ErrorReporter reports of node errors). */
export const engineLogs: LogEntry[] = [];

function makeLogger(): Logger {
	const echo = process.env.ENGINE_HARNESS_LOG === '1';
	const log =
		(level: LogEntry['level']) =>
		(message: string, meta?: unknown): void => {
			engineLogs.push({ level, message, meta });
			if (echo) console.log(`[n8n ${level}] ${message}`);
		};
	const logger = {
		error: log('error'),
		warn: log('warn'),
		info: log('info'),
		debug: log('debug'),
		scoped: () => logger,
		getInternalLogger: () => undefined,
	};
	return logger as unknown as Logger;
}

interface EngineState {
	mode: BinaryDataMode;
	storageDir?: string;
	ownsStorageDir: boolean;
}
let engineState: EngineState | undefined;

export interface ConfigureEngineOptions {
	/** 'default' keeps binaries in memory (base64 in `item.binary[prop].data`); 'filesystem' stores
	 * them as files (item gets `id: 'filesystem-v2:…'`, `data: 'filesystem-v2'`). Default 'default'. */
	binaryDataMode?: BinaryDataMode;
	/** For 'filesystem': directory to store binaries in (default: a fresh temp dir, removed by teardownEngine). */
	storagePath?: string;
}

/**
 * Sets up the @n8n/di Container services n8n-core needs. Idempotent for the same options;
 * runWorkflow() calls it with defaults if you didn't. Call again with other options to switch
 * the binary data mode (affects runs started afterwards — don't switch while a run is active).
 */
export async function configureEngine(options: ConfigureEngineOptions = {}): Promise<void> {
	const mode = options.binaryDataMode ?? 'default';
	if (
		engineState &&
		engineState.mode === mode &&
		(options.storagePath === undefined || options.storagePath === engineState.storageDir)
	) {
		return;
	}
	teardownEngine();

	const logger = makeLogger();
	Container.set(Logger, logger);
	Container.set(ErrorReporter, new ErrorReporter(logger));

	// The real InstanceSettings reads/creates ~/.n8n/config (encryption key). A prototype-based
	// stub keeps its methods/getters but never touches the disk.
	const n8nFolder = join(tmpdir(), 'n8n-engine-harness-unused');
	const instanceSettings = Object.assign(Object.create(InstanceSettings.prototype) as object, {
		n8nFolder,
		staticCacheDir: join(n8nFolder, 'cache'),
		customExtensionDir: join(n8nFolder, 'custom'),
		nodesDownloadDir: join(n8nFolder, 'nodes'),
		settings: { encryptionKey: 'engine-harness-encryption-key' },
		instanceId: 'engine-harness-instance',
		hmacSignatureSecret: 'engine-harness-hmac-secret',
		instanceType: 'main',
		instanceRole: 'unset',
		hostId: 'main-engine-harness',
		isMultiMainEnabled: false,
		isMultiMainLicensed: false,
	}) as unknown as InstanceSettings;
	Container.set(InstanceSettings, instanceSettings);

	let storageDir: string | undefined;
	let ownsStorageDir = false;
	if (mode === 'filesystem') {
		storageDir = options.storagePath ?? mkdtempSync(join(tmpdir(), 'n8n-engine-harness-binary-'));
		ownsStorageDir = options.storagePath === undefined;
	}
	const binaryDataConfig = {
		mode,
		availableModes: ['filesystem'],
		localStoragePath: storageDir ?? join(n8nFolder, 'binaryData'),
		signingSecret: 'engine-harness-signing-secret',
		dbMaxFileSize: 512,
	} as unknown as BinaryDataConfig;
	const binaryDataService = new BinaryDataService(
		binaryDataConfig,
		Container.get(ErrorReporter),
		logger,
	);
	// init() only creates the filesystem manager (mkdir). With mode 'default' no manager exists for
	// that mode and BinaryDataService.store() keeps the data in memory (base64 in the item).
	if (mode === 'filesystem') await binaryDataService.init();
	Container.set(BinaryDataService, binaryDataService);

	// Every ExecuteContext does Container.get(SSHClientsManager) (for this.helpers.getSSHClient), and
	// every TriggerContext Container.get(ScheduledTaskManager). Their constructors start ref'd
	// intervals (SSH idle cleanup every 60s; cron logging) that would keep the jest worker alive
	// ("Jest did not exit one second after the test run has completed", and --detectOpenHandles
	// hangs without naming them). Create them now and unref the timers; teardownEngine() clears them.
	unrefTimer(Container.get(SSHClientsManager), 'cleanupTimer');
	unrefTimer(Container.get(ScheduledTaskManager), 'logInterval');

	engineState = { mode, storageDir, ownsStorageDir };
}

function unrefTimer(service: object, field: string): void {
	const timer = (service as Record<string, unknown>)[field] as NodeJS.Timeout | undefined;
	timer?.unref();
}

/**
 * Clears the n8n-core timers and removes the temp binary-data dir (if the harness created one).
 * Registered as an afterAll() automatically when the harness is imported by a jest test file;
 * safe to call more than once.
 */
export function teardownEngine(): void {
	if (!engineState) return;
	Container.get(SSHClientsManager).onShutdown();
	const scheduler = Container.get(ScheduledTaskManager);
	scheduler.deregisterAllCrons();
	clearInterval((scheduler as unknown as { logInterval?: NodeJS.Timeout }).logInterval);
	if (engineState.ownsStorageDir && engineState.storageDir) {
		rmSync(engineState.storageDir, { recursive: true, force: true });
	}
	engineState = undefined;
}

if (typeof afterAll === 'function') afterAll(() => teardownEngine());

// ---------------------------------------------------------------------------------------------
// Node types
// ---------------------------------------------------------------------------------------------

/** Type name of the harness's manual trigger (n8n-nodes-base's ManualTrigger is not installed). */
export const MANUAL_TRIGGER_TYPE = 'engineHarness.manualTrigger';

/**
 * Like n8n's ManualTrigger. In 'manual' mode WorkflowExecute calls `trigger()` and takes what
 * `manualTriggerFunction` emits; in any other mode (trigger/webhook/integrated…) it passes the
 * start item's input data through — the harness puts `triggerItems` there too, so both work.
 */
function makeManualTrigger(items: INodeExecutionData[]): INodeType {
	return {
		description: {
			displayName: 'Harness Manual Trigger',
			name: MANUAL_TRIGGER_TYPE,
			group: ['trigger'],
			version: 1,
			description: 'Emits the harness triggerItems',
			defaults: { name: 'Trigger' },
			inputs: [],
			outputs: ['main'],
			properties: [],
		},
		async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
			const manualTriggerFunction = async () => {
				this.emit([deepCopy(items)]);
			};
			return { manualTriggerFunction };
		},
	};
}

class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (!type) throw new Error(`engine harness: unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

// ---------------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------------

/**
 * In-memory ICredentialsHelper: getDecrypted() returns a copy of `credentials[type]`, whatever
 * credential id/name the node references, its expressions ("=…" fields) resolved for the item asking, as n8n's. `authenticate()` implements the generic
 * (`authenticate: { type: 'generic', properties }`) and function forms of ICredentialType, so
 * `this.helpers.httpRequestWithAuthentication` works if you pass `credentialTypes`.
 */
export class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
		private readonly credentialTypes: Record<string, ICredentialType> = {},
	) {
		super();
	}

	getParentTypes(name: string): string[] {
		const type = this.credentialTypes[name];
		const parents = type?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const options = requestOptions as IHttpRequestOptions;
		const authenticate = this.credentialTypes[typeName]?.authenticate;
		if (typeof authenticate === 'function') return await authenticate(credentials, options);
		if (authenticate?.type !== 'generic') return options;
		const resolve = (value: unknown): unknown =>
			typeof value === 'string' && value.startsWith('=')
				? workflow.expression.getParameterValue(value, null, 0, 0, node.name, [], 'internal', {
						$credentials: credentials,
					})
				: value;
		const target = options as unknown as Record<string, Record<string, unknown> | undefined>;
		for (const [outerKey, inner] of Object.entries(authenticate.properties)) {
			const bucket = (target[outerKey] ??= {});
			for (const [key, value] of Object.entries(inner as Record<string, unknown>)) {
				bucket[String(resolve(key))] = resolve(value);
			}
		}
		return options;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		_node: INode,
		_credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(_nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		throw new Error(`engine harness: getCredentials("${type}") (encrypted form) is not supported`);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		_raw?: boolean,
		resolve?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.data[type];
		if (!data) {
			throw new Error(
				`engine harness: no credentials of type "${type}" (node references "${nodeCredentials?.name}")`,
			);
		}
		// As n8n's CredentialsHelper: a field holding an expression ("=…") is resolved for the item asking.
		const hasExpression = Object.values(data).some((value) => typeof value === 'string' && value.startsWith('='));
		if (!resolve || !hasExpression) return deepCopy(data);
		const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } = resolve;
		return workflow.expression.getParameterValue(deepCopy(data) as INodeParameters, runExecutionData, runIndex, itemIndex, node.name, connectionInputData, mode, {}, executeData, false, data) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/** INode with the boring fields optional (id, position, parameters, typeVersion default to sensible values). */
export type HarnessNode = Omit<INode, 'id' | 'position' | 'parameters' | 'typeVersion'> &
	Partial<Pick<INode, 'id' | 'position' | 'parameters' | 'typeVersion'>>;

export interface RunWorkflowOptions {
	nodes: HarnessNode[];
	connections: IConnections;
	/** node type name → node type instance. MANUAL_TRIGGER_TYPE is added automatically. */
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	/**
	 * credential type name → decrypted data returned to `this.getCredentials(type)`. Nodes whose type
	 * declares that credential get `node.credentials[type]` filled in if they don't reference one.
	 */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** credential type definitions, only needed for `httpRequestWithAuthentication` (authenticate). */
	credentialTypes?: ICredentialType[];
	/** Items the start node emits (trigger) or receives as input (non-trigger start node). Default [{ json: {} }]. */
	triggerItems?: INodeExecutionData[];
	/** Start the run at this node (default: n8n's Workflow.getStartNode(), i.e. the first trigger). */
	startNode?: string;
	/** Aborting it cancels the execution exactly like n8n's "stop execution". */
	signal?: AbortSignal;
	/** Merged over { executionOrder: 'v1' } (n8n's default for new workflows). */
	settings?: IWorkflowSettings;
	/** Default 'manual' (like "Execute workflow" in the editor). */
	mode?: WorkflowExecuteMode;
	executionId?: string;
	workflowId?: string;
	/** Passed as the workflow's static data. */
	staticData?: IDataObject;
}

export interface HookEvent {
	hook: 'nodeExecuteBefore' | 'nodeExecuteAfter' | 'workflowExecuteBefore' | 'workflowExecuteAfter';
	nodeName?: string;
}

export interface EngineRun {
	data: IRun;
	status: IRun['status'];
	runData: IRunData;
	/** Workflow-level error (data.resultData.error), if any. */
	error: ExecutionError | undefined;
	/** Node names in the order WorkflowExecute started them (nodeExecuteBefore hook). */
	executionOrder: string[];
	/** All lifecycle hook calls, in order. */
	hookEvents: HookEvent[];
	workflow: Workflow;
	ran(nodeName: string): boolean;
	taskData(nodeName: string, runIndex?: number): ITaskData;
	/** Items on `outputIndex` of the node's run `runIndex` ([] if that output got nothing). Throws if the node did not run. */
	outputOf(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** All main outputs of a node run. */
	outputsOf(nodeName: string, runIndex?: number): INodeExecutionData[][];
	/** The node run's error (taskData.error), if any. */
	errorOf(nodeName: string, runIndex?: number): ExecutionError | undefined;
	/** Reads an item's binary back through BinaryDataService (works for in-memory and filesystem modes). */
	binaryBuffer(item: INodeExecutionData, prop?: string): Promise<Buffer>;
}

let runCounter = 0;

export async function runWorkflow(opts: RunWorkflowOptions): Promise<EngineRun> {
	await configureEngine(engineState ? { binaryDataMode: engineState.mode, storagePath: engineState.storageDir } : {});

	const mode: WorkflowExecuteMode = opts.mode ?? 'manual';
	const executionId = opts.executionId ?? `harness-${++runCounter}`;
	const workflowId = opts.workflowId ?? 'harness-workflow';
	const triggerItems = opts.triggerItems ?? [{ json: {} }];

	// Workflow mutates nodes (applies parameter defaults): work on copies.
	const nodes: INode[] = opts.nodes.map((node, index) => ({
		id: node.id ?? `node-${index}`,
		position: node.position ?? [index * 200, 0],
		typeVersion: node.typeVersion ?? 1,
		parameters: {},
		...deepCopy(node),
	}));
	const connections = deepCopy(opts.connections);
	const settings: IWorkflowSettings = { executionOrder: 'v1', ...opts.settings };

	const nodeTypes = new HarnessNodeTypes({
		[MANUAL_TRIGGER_TYPE]: makeManualTrigger(triggerItems),
		...opts.nodeTypes,
	});
	for (const node of nodes) {
		const description = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).description; // throws on unknown types
		// n8n only hands credentials to a node whose INode.credentials references that type
		// ("Node does not have any credentials set" otherwise). Reference the in-memory ones for you.
		for (const { name } of description.credentials ?? []) {
			if (opts.credentials?.[name] && !node.credentials?.[name]) {
				node.credentials = { ...node.credentials, [name]: { id: `cred-${name}`, name: `${name} (harness)` } };
			}
		}
	}

	const workflow = new Workflow({
		id: workflowId,
		name: 'Engine harness workflow',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
		staticData: opts.staticData,
	});

	const hookEvents: HookEvent[] = [];
	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: 'Engine harness workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(0),
		updatedAt: new Date(0),
		nodes,
		connections,
		settings,
	};
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	hooks.addHandler('workflowExecuteBefore', () => {
		hookEvents.push({ hook: 'workflowExecuteBefore' });
	});
	hooks.addHandler('nodeExecuteBefore', (nodeName) => {
		hookEvents.push({ hook: 'nodeExecuteBefore', nodeName });
	});
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		hookEvents.push({ hook: 'nodeExecuteAfter', nodeName });
	});
	hooks.addHandler('workflowExecuteAfter', () => {
		hookEvents.push({ hook: 'workflowExecuteAfter' });
	});

	const notSupported = (what: string) => async (): Promise<never> => {
		throw new Error(`engine harness: ${what} is not supported`);
	};
	const additionalData: IWorkflowExecuteAdditionalData = {
		credentialsHelper: new InMemoryCredentialsHelper(
			opts.credentials ?? {},
			Object.fromEntries((opts.credentialTypes ?? []).map((type) => [type.name, type])),
		),
		executeWorkflow: notSupported('executeWorkflow (sub-workflows)'),
		getRunExecutionData: async () => undefined,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: notSupported('startRunnerTask (task runners / Code node)'),
		hooks,
		externalSecretsProxy: new ExternalSecretsProxy(),
	};

	const startNode = opts.startNode ? workflow.getNode(opts.startNode) : workflow.getStartNode();
	if (!startNode) throw new Error(`engine harness: start node "${opts.startNode ?? '(auto)'}" not found`);

	const workflowExecute = new WorkflowExecute(additionalData, mode);
	// triggerToStartFrom.data becomes the start node's input (n8n passes a trigger's emitted data
	// this way); for a trigger in 'manual' mode the trigger() emission wins.
	const execution = workflowExecute.run(workflow, startNode, undefined, undefined, {
		name: startNode.name,
		data: {
			startTime: 0,
			executionIndex: 0,
			executionTime: 0,
			source: [],
			data: { main: [deepCopy(triggerItems)] },
		},
	});

	const onAbort = () => execution.cancel();
	if (opts.signal?.aborted) onAbort();
	else opts.signal?.addEventListener('abort', onAbort, { once: true });
	let data: IRun;
	try {
		data = await execution;
	} finally {
		opts.signal?.removeEventListener('abort', onAbort);
	}

	const runData = data.data.resultData.runData;
	const taskData = (nodeName: string, runIndex = 0): ITaskData => {
		const task = runData[nodeName]?.[runIndex];
		if (!task) {
			throw new Error(
				`engine harness: node "${nodeName}" has no run #${runIndex} (nodes that ran: ${Object.keys(runData).join(', ') || 'none'}; status ${data.status}; error: ${data.data.resultData.error?.message ?? 'none'})`,
			);
		}
		return task;
	};

	return {
		data,
		status: data.status,
		runData,
		error: data.data.resultData.error,
		executionOrder: hookEvents.filter((e) => e.hook === 'nodeExecuteBefore').map((e) => e.nodeName!),
		hookEvents,
		workflow,
		ran: (nodeName) => (runData[nodeName]?.length ?? 0) > 0,
		taskData,
		outputOf: (nodeName, outputIndex = 0, runIndex = 0) =>
			taskData(nodeName, runIndex).data?.main?.[outputIndex] ?? [],
		outputsOf: (nodeName, runIndex = 0) =>
			(taskData(nodeName, runIndex).data?.main ?? []).map((items) => items ?? []),
		errorOf: (nodeName, runIndex = 0) => taskData(nodeName, runIndex).error,
		binaryBuffer: async (item, prop = 'data') => {
			const binary = item.binary?.[prop];
			if (!binary) throw new Error(`engine harness: item has no binary property "${prop}"`);
			return await Container.get(BinaryDataService).getAsBuffer(binary);
		},
	};
}

/** For 'filesystem' binary mode: the file an item's binary was stored in. */
export function binaryFilePath(binary: IBinaryData): string {
	if (!binary.id) throw new Error('engine harness: binary has no id (in-memory binary data mode?)');
	return Container.get(BinaryDataService).getPath(binary.id);
}

// ---------------------------------------------------------------------------------------------
// Small helpers for building workflows
// ---------------------------------------------------------------------------------------------

/** A node of the harness manual trigger type. */
export function manualTrigger(name = 'Trigger'): HarnessNode {
	return { name, type: MANUAL_TRIGGER_TYPE, typeVersion: 1, parameters: {} };
}

/**
 * Builds IConnections from links: [from, to] or [from, to, fromOutputIndex, toInputIndex].
 * Only 'main' connections.
 */
export function connect(...links: Array<[string, string, number?, number?]>): IConnections {
	const connections: IConnections = {};
	for (const [from, to, output = 0, input = 0] of links) {
		const main = ((connections[from] ??= {}).main ??= []);
		while (main.length <= output) main.push([]);
		(main[output] ??= []).push({ node: to, type: 'main', index: input });
	}
	return connections;
}
