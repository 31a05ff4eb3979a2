/**
 * A FLUX model as data: its endpoint, the pool its jobs run in, its account limit, its parameters (parameter.ts:
 * editor, validation, label and BFL name each declared once), the checks across them, its list price. Adding a
 * model is one descriptor (image models registered in imageModels.ts); nodes, key, submit and spend follow.
 */
import type { ModelWire } from '../flux/request';
import { bodyOf, type Parameter, type Values } from './parameter';

export interface ModelDescriptor extends ModelWire {
	/** The endpoint name (`…/v1/<id>`), also the value of the image nodes' Model parameter and the key's model. */
	id: string;
	/** As the editor shows it. */
	name: string;
	/** `image` or `video`: picks the pool and how the result is kept. */
	output: 'image' | 'video';
	/** Active tasks BFL allows an account on this endpoint: where the adaptive account limit starts. */
	accountLimit: number;
	/** The result's media type when the bytes do not say otherwise (images follow their magic bytes). */
	mediaType: string;
	/** The endpoint (`…/v1/<endpoint>`). */
	endpoint: string;
	/** Its parameters in editor and body order (a `mode` parameter first when it has modes). */
	parameters: readonly Parameter[];
	/** Rules across parameters, on the values read (throws InvalidParameterError naming a parameter). */
	check?(values: Values): void;
	/** BFL's list price in credits for a body (media as 1 each), where BFL publishes one. */
	listPrice?(body: Readonly<Record<string, unknown>>): number;
}

/** Whether the model takes the Seed upstream. */
export const takesSeed = (model: ModelDescriptor): boolean => model.parameters.some((p) => p.wire === 'seed');

/**
 * A model from its data: its body is made from its declarations (`values` by parameter name, media through `media`),
 * and a body field is named as its declaration shows it in the editor (a field written under its own BFL name).
 */
export function describeModel<T extends Omit<ModelDescriptor, 'body'>>(spec: T): T & ModelDescriptor {
	const labels = new Map(spec.parameters.flatMap((p) => (typeof p.wire === 'string' && p.property ? [[p.wire, p.property.displayName] as const] : [])));
	const model: T & ModelDescriptor = { ...spec, body: (values: Values, media) => bodyOf(model.parameters, values, media), fieldLabel: (field) => labels.get(field) };
	return model;
}
