import type { IExecuteFunctions } from 'n8n-workflow';

import type { Values } from '../models';
import { credentialsParserForRun } from './fluxCredentials';
import { CredentialsAhead } from './credentialsAhead';
import { fluxNodeParameterDefaults, type FluxNodeKindName } from './fluxParameters';
import type { KnownBinaries } from './referenceImages';

/** n8n marks an expression by a leading `=`; a parameter is item-independent when no value inside it is one. */
function hasExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(hasExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(hasExpression);
	return false;
}

/**
 * One node run's raw parameters, item by item, exactly as n8n resolves them for each item: a parameter without an
 * expression resolves to the same value for every item, so it is read once (at the first item) and shared; one with
 * an expression is read per item. A shared parameter whose reading fails is read per item instead, so every item
 * gets its own error. `defaults` names the parameters (top level) and what n8n hands over when one is unset.
 */
export class FluxParameterReader {
	/** Per parameter: its shared raw value, or null when it is read per item; absent until first looked at. */
	private readonly shared = new Map<string, { raw: unknown } | null>();

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly defaults: Record<string, unknown>,
	) {}

	/** The item's raw parameters, every one read before any is validated. */
	read(itemIndex: number): Values {
		return Object.fromEntries(Object.keys(this.defaults).map((name) => [name, this.raw(name, itemIndex)]));
	}

	private readItem(name: string, itemIndex: number): unknown {
		return this.ctx.getNodeParameter(name, itemIndex, this.defaults[name]);
	}

	private raw(name: string, itemIndex: number): unknown {
		let shared = this.shared.get(name);
		if (shared === undefined) {
			shared = null;
			try {
				if (!hasExpression(this.ctx.getNodeParameter(name, itemIndex, this.defaults[name], { rawExpressions: true }))) shared = { raw: this.readItem(name, itemIndex) };
			} catch {
				shared = null; // read per item: each item throws its own error
			}
			this.shared.set(name, shared);
		}
		return shared === null ? this.readItem(name, itemIndex) : shared.raw;
	}
}

/** What one node run (one execute call: the same n8n context object for every item) keeps from item to item: what it reads and checks once, and the credential asks under way. */
const newRun = (ctx: IExecuteFunctions, kind: FluxNodeKindName) => ({
	parameters: new FluxParameterReader(ctx, fluxNodeParameterDefaults(kind)),
	credentials: new CredentialsAhead(ctx, 'fluxApi'),
	parseCredentials: credentialsParserForRun(),
	binaries: new Map() as KnownBinaries['copies'],
});

const runs = { image: new WeakMap<IExecuteFunctions, ReturnType<typeof newRun>>(), video: new WeakMap<IExecuteFunctions, ReturnType<typeof newRun>>() };

/** The node run of `ctx`, a node of `kind`: made at its first item. */
export function fluxRun(ctx: IExecuteFunctions, kind: FluxNodeKindName): ReturnType<typeof newRun> {
	let run = runs[kind].get(ctx);
	if (!run) runs[kind].set(ctx, (run = newRun(ctx, kind)));
	return run;
}
