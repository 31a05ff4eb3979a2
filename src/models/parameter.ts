/**
 * One declaration per parameter: its editor property, its zod reader, where it sits (top level or Options), the
 * modes that take it, and its BFL name (how it goes into the body). The editor properties (with displayOptions),
 * the item's validation, the error labels and the request bodies are all made from these declarations.
 */
import type { INodeProperties } from 'n8n-workflow';
import type { z } from 'zod';

import type { Media } from '../flux/request';
import { describeValue, fieldOf, InvalidParameterError, valueAt } from '../parameters/invalidParameter';

export interface Parameter {
	/** The parameter's name (its value's path: `name`, or `options.name` when `in` is `options`). */
	readonly name: string;
	/** The editor property (displayOptions are generated); absent: not shown (a value another parameter shows). */
	readonly property?: INodeProperties;
	/** The raw value read: blank takes the default; an issue's message says what is wrong. */
	readonly schema: z.ZodTypeAny;
	readonly in?: 'options';
	/** BFL's field name, or how the value is written into the body; absent: never sent. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each declaration's own value type
	readonly wire?: string | ((value: any, media: Media) => Record<string, unknown>);
	/** Whether a read value is sent (default: whenever it is defined). */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each declaration's own value type
	readonly sendIf?: (value: any) => boolean;
	/** The modes (a `mode` parameter's values) that show, read and send it; absent: every mode. */
	readonly modes?: readonly string[];
	/** A value outside `modes` is refused (a media field a JSON import or API call may carry) rather than ignored. */
	readonly refusedOutsideModes?: boolean;
}

/** The values of an item, by parameter name. */
export type Values = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isBlank = (v: unknown) => v === undefined || (Array.isArray(v) && v.length === 0);

/** The raw value of a parameter in an item's raw parameters. */
const rawValue = (p: Parameter, raw: Values): unknown => (p.in ? (isRecord(raw[p.in]) ? (raw[p.in] as Values)[p.name] : undefined) : raw[p.name]);

/** The error of a value's first issue: the field, what is wrong, and (but for a row of a list) the value it got. */
function issueError(p: Parameter, issue: z.ZodIssue, value: unknown): InvalidParameterError {
	const field = fieldOf([...(p.in ? [p.in] : []), p.name, ...issue.path]);
	// A row's own message (a list of media) says what is wrong with it; a value's names the value.
	if ((issue.code === 'custom' && issue.path.length > 0) || issue.message.includes('(got')) return new InvalidParameterError(field, issue.message);
	const at = valueAt(value, issue.path);
	const message = issue.code === 'invalid_type' && at === undefined ? 'is required' : issue.message;
	return new InvalidParameterError(field, `${message} (got ${describeValue(at)})`);
}

/** The name the editor gives a mode value (from the `mode` parameter's options). */
function modeName(parameters: readonly Parameter[], mode: unknown): string {
	const options = (parameters.find((p) => p.name === 'mode')?.property?.options ?? []) as Array<{ name: string; value: unknown }>;
	return options.find((o) => o.value === mode)?.name ?? String(mode);
}

/** Parse results of primitive raw values (per schema) whose result is primitive too: shared safely by every item. */
const primitiveParses = new WeakMap<z.ZodTypeAny, Map<unknown, z.SafeParseReturnType<unknown, unknown>>>();
/** Distinct values remembered per schema (a prompt differs per item): past it the schema's memory starts again. */
const PRIMITIVE_PARSES_KEPT = 64;

export const isPrimitive = (value: unknown) => value === null || (typeof value !== 'object' && typeof value !== 'function');

/**
 * `schema.safeParse(value)`, remembered for a primitive value with a primitive result (a node run's items repeat
 * their constant parameters: a model, an aspect ratio, a number, each parsed through a few preprocess steps).
 * Schemas are pure, so the same value always parses the same way.
 */
function parseValue(schema: z.ZodTypeAny, value: unknown): z.SafeParseReturnType<unknown, unknown> {
	if (!isPrimitive(value) || Object.is(value, -0)) return schema.safeParse(value); // a Map does not tell -0 from 0
	let known = primitiveParses.get(schema);
	const found = known?.get(value);
	if (found) return found;
	const parsed = schema.safeParse(value);
	if (parsed.success && !isPrimitive(parsed.data)) return parsed;
	if (!known || known.size >= PRIMITIVE_PARSES_KEPT) primitiveParses.set(schema, (known = new Map()));
	known.set(value, parsed);
	return parsed;
}

/**
 * Read and validate an item's raw parameters (as n8n hands them over) by the declarations, in their order: the
 * first invalid one throws InvalidParameterError naming it. A parameter outside the item's mode is not read
 * (refused when it says so and holds a value).
 */
export function readValues(parameters: readonly Parameter[], raw: Values, mode?: unknown): Values {
	const values: Values = {};
	for (const p of parameters) {
		const inMode = mode === undefined || !p.modes || p.modes.includes(String(mode));
		const at = rawValue(p, raw);
		const parsed = parseValue(p.schema, at);
		if (!inMode) {
			if (p.refusedOutsideModes && parsed.success && !isBlank(parsed.data)) {
				const shown = p.modes!.map((m) => modeName(parameters, m)).join(' or ');
				throw new InvalidParameterError(p.name, `is only used with Mode ${shown}: clear it or set Mode to ${shown} (Mode is ${modeName(parameters, mode)})`);
			}
			continue;
		}
		if (!parsed.success) throw issueError(p, parsed.error.issues[0], at);
		values[p.name] = parsed.data;
		if (p.name === 'mode') mode = parsed.data;
	}
	return values;
}

/** A request body from values: every parameter that is sent, in declaration order, media through `media`. */
export function bodyOf(parameters: readonly Parameter[], values: Values, media: Media): Record<string, unknown> {
	const body: Record<string, unknown> = {};
	for (const p of parameters) {
		const value = values[p.name];
		if (!p.wire || value === undefined || (p.modes && values.mode !== undefined && !p.modes.includes(String(values.mode)))) continue;
		if (p.sendIf && !p.sendIf(value)) continue;
		if (typeof p.wire === 'string') body[p.wire] = value;
		else Object.assign(body, p.wire(value, media));
	}
	return body;
}

/**
 * The editor properties of a set of models: each declared property once per distinct form (a per-model range
 * makes one form per range), shown only for the models (`selector`'s values) and modes that take it; those under
 * Options come apart, their conditions read from the root (`/model`). Each model's properties keep its order.
 */
export function editorProperties(models: ReadonlyArray<{ id: string; parameters: readonly Parameter[] }>, selector: string): { top: INodeProperties[]; options: INodeProperties[] } {
	const forms: Array<{ key: string; p: Parameter; ids: string[] }> = [];
	for (const model of models) {
		// A model's new forms go right before its next form already listed (or last): earlier models keep their order.
		let pending: typeof forms = [];
		for (const p of model.parameters) {
			if (!p.property) continue;
			const key = `${p.in ?? ''}:${JSON.stringify(p.property)}:${p.modes?.join() ?? ''}`;
			const at = forms.findIndex((f) => f.key === key);
			if (at < 0) pending.push({ key, p, ids: [model.id] });
			else {
				forms[at].ids.push(model.id);
				forms.splice(at, 0, ...pending);
				pending = [];
			}
		}
		forms.push(...pending);
	}
	const top: INodeProperties[] = [];
	const options: INodeProperties[] = [];
	for (const { p, ids } of forms) {
		const root = p.in ? '/' : '';
		const show: Record<string, string[]> = {};
		if (ids.length < models.length) show[`${root}${selector}`] = ids;
		if (p.modes) show[`${root}mode`] = [...p.modes];
		// The conditions that show it: none when it shows everywhere.
		(p.in ? options : top).push(Object.keys(show).length === 0 ? { ...p.property! } : { ...p.property!, displayOptions: { show } });
	}
	return { top, options };
}
