import type { IExecuteFunctions } from 'n8n-workflow';

import {
	FLUX_PARAMETER_NAMES,
	parseFluxParameter,
	toFluxParameters,
	type FluxParameterName,
	type FluxParameters,
} from './fluxParameters';
import { imageModel } from '../models';
import { DEFAULT_IMAGE_MODEL } from '../models/imageModels';

/** Where each parameter sits in the node's parameters, and its default when absent. */
const SOURCES: Record<FluxParameterName, { path: string; fallback?: unknown }> = {
	model: { path: 'model', fallback: DEFAULT_IMAGE_MODEL },
	prompt: { path: 'prompt' },
	resolution: { path: 'resolution', fallback: '1k' },
	aspectRatio: { path: 'aspectRatio', fallback: 'auto' },
	grounding: { path: 'grounding', fallback: true },
	safetyTolerance: { path: 'safetyTolerance', fallback: 2 },
	seed: { path: 'seed', fallback: 0 },
	referenceImages: { path: 'referenceImages.images', fallback: [] },
	skipError: { path: 'skipError', fallback: false },
	options: { path: 'options', fallback: {} },
};

/** n8n marks an expression by a leading `=`; a parameter is item-independent when no value inside it is one. */
function hasExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(hasExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(hasExpression);
	return false;
}

/** A parameter read once for the whole run: its raw value and its validation (the value or the error). */
interface SharedParameter {
	raw: unknown;
	parsed?: { value: unknown } | { error: unknown };
}

/**
 * One node run's FLUX parameters, item by item, exactly as reading and validating each item alone would give
 * them: n8n resolves a parameter without an expression to the same value for every item, so such a
 * parameter is read and validated once (at the first item) and shared; a parameter with an expression is
 * read and validated per item. All of an item's parameters are read before any is validated, and the first
 * invalid one (in FLUX_PARAMETER_NAMES order) is reported, as parseFluxParameters does. A shared parameter
 * whose reading fails is read per item instead, so every item gets its own error.
 */
export class FluxParameterReader {
	/** Per parameter: its shared read, or null when it is read per item; absent until first looked at. */
	private readonly shared = new Map<FluxParameterName, SharedParameter | null>();

	constructor(private readonly ctx: IExecuteFunctions) {}

	read(itemIndex: number): FluxParameters {
		const raws = FLUX_PARAMETER_NAMES.map((name) => this.raw(name, itemIndex));
		const fields: Record<string, unknown> = {};
		FLUX_PARAMETER_NAMES.forEach((name, i) => (fields[name] = this.parse(name, raws[i])));
		// The model's own parameters, raw: its descriptor validates them (prepareFluxImageJob).
		const own = fields.model === undefined ? [] : imageModel(fields.model).properties.map((p) => [p.name, this.ctx.getNodeParameter(p.name, itemIndex, p.default)]);
		return toFluxParameters(fields as Parameters<typeof toFluxParameters>[0], Object.fromEntries(own));
	}

	private readItem(name: FluxParameterName, itemIndex: number): unknown {
		const { path, fallback } = SOURCES[name];
		return this.ctx.getNodeParameter(path, itemIndex, fallback);
	}

	/** The raw value of `name` for the item: the shared one when the parameter holds no expression. */
	private raw(name: FluxParameterName, itemIndex: number): unknown {
		let shared = this.shared.get(name);
		if (shared === undefined) shared = this.share(name, itemIndex);
		return shared === null ? this.readItem(name, itemIndex) : shared.raw;
	}

	private share(name: FluxParameterName, itemIndex: number): SharedParameter | null {
		const { path, fallback } = SOURCES[name];
		let shared: SharedParameter | null = null;
		try {
			if (!hasExpression(this.ctx.getNodeParameter(path, itemIndex, fallback, { rawExpressions: true }))) {
				shared = { raw: this.readItem(name, itemIndex) };
			}
		} catch {
			shared = null; // read per item: each item throws its own error
		}
		this.shared.set(name, shared);
		return shared;
	}

	/** `raw` validated; a shared parameter is validated once, its error thrown again for every item. */
	private parse(name: FluxParameterName, raw: unknown): unknown {
		const shared = this.shared.get(name);
		if (!shared) return parseFluxParameter(name, raw);
		if (!shared.parsed) {
			try {
				shared.parsed = { value: parseFluxParameter(name, raw) };
			} catch (error) {
				shared.parsed = { error };
			}
		}
		if ('error' in shared.parsed) throw shared.parsed.error;
		return shared.parsed.value;
	}
}
