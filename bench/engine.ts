/**
 * Loads the engine harness (test/engine/harness.ts: n8n-core's real WorkflowExecute, in process)
 * outside jest, and builds the benchmark's workflows.
 *
 * The harness calls `jest.mock('p-retry', …)` at load time. That stand-in is only needed under
 * jest, whose module loader cannot require ESM; plain Node >= 20.19 requires the ESM-only p-retry
 * itself. Outside jest `jest` is not defined, so for the duration of the harness's `require` we
 * define a `jest` global whose `mock` does nothing, then remove it again. The harness file is not
 * changed, and its behaviour under jest is untouched.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import type * as HarnessModule from '../test/engine/harness';

export type Harness = typeof HarnessModule;

let loaded: Harness | undefined;

export function loadHarness(): Harness {
	if (loaded) return loaded;
	const g = globalThis as { jest?: unknown };
	const hadJest = g.jest !== undefined;
	if (!hadJest) g.jest = { mock: () => undefined };
	try {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		loaded = require('../test/engine/harness') as Harness;
	} finally {
		if (!hadJest) delete g.jest;
	}
	return loaded;
}

export const TYPES = {
	image: 'n8n-nodes-flux-concurrent.fluxImage',
	submit: 'n8n-nodes-flux-concurrent.fluxConcurrentSubmit',
	collect: 'n8n-nodes-flux-concurrent.concurrentCollect',
} as const;

/** Time spent in each `execute` of a node type (performance.now(), ms). */
export interface ExecuteTiming {
	node: string;
	ms: number;
	/** process.cpuUsage() over the same span, ms (user + system; includes anything else running meanwhile). */
	cpuMs: number;
	items: number;
}

/**
 * The package's node types; the submit node's `execute` is wrapped to time it precisely
 * (the wrapper adds two performance.now() calls, nothing else).
 */
export function makeNodeTypes(timings: ExecuteTiming[]): Record<string, INodeType> {
	// Loaded after the harness (n8n-core), as the harness README asks. The explicit `.ts`: under plain
	// ts-node, Node's resolver tries `.json` before `.ts`, and each node has a codex file
	// `X.node.json` next to `X.node.ts` (jest resolves `.ts` first, so the tests don't see this).
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { FluxImage } = require('../nodes/FluxImage/FluxImage.node.ts') as typeof import('../nodes/FluxImage/FluxImage.node');
	const { FluxConcurrentSubmit } =
		require('../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node.ts') as typeof import('../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node');
	const { ConcurrentCollect } =
		require('../nodes/ConcurrentCollect/ConcurrentCollect.node.ts') as typeof import('../nodes/ConcurrentCollect/ConcurrentCollect.node');
	/* eslint-enable @typescript-eslint/no-require-imports */
	const submit = new FluxConcurrentSubmit();
	const execute = submit.execute!;
	submit.execute = async function (this: IExecuteFunctions) {
		const items = this.getInputData().length;
		const cpu0 = process.cpuUsage();
		const t0 = performance.now();
		try {
			return await execute.call(this);
		} finally {
			const ms = performance.now() - t0;
			const cpu = process.cpuUsage(cpu0);
			timings.push({ node: this.getNode().name, ms, cpuMs: (cpu.user + cpu.system) / 1000, items });
		}
	} as typeof execute;
	return {
		[TYPES.image]: new FluxImage(),
		[TYPES.submit]: submit,
		[TYPES.collect]: new ConcurrentCollect(),
	};
}

export const credentialRef = { fluxApi: { id: 'cred-bench', name: 'FLUX (relay simulator)' } };

export function fluxCredentials(simUrl: string, apiKey: string) {
	return { fluxApi: { apiStyle: 'relay', baseUrl: simUrl, apiKey } };
}

/** Prompts `${prefix} ${i}${suffix}`; a suffix such as " [4m]" lets the simulator's faults pick the image size. */
export function promptItems(prefix: string, from: number, count: number, suffix = ''): INodeExecutionData[] {
	return Array.from({ length: count }, (_, i) => ({ json: { prompt: `${prefix} ${from + i}${suffix}` } as IDataObject }));
}
