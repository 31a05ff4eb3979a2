/**
 * The image models the FLUX image node and its twin offer, and the editor parameters that follow from them: the
 * Model option and each model's own parameters, shown only for the models that have them (displayOptions).
 * A model registered here before the node descriptions are built appears in both nodes with no other edit.
 */
import type { INodeProperties } from 'n8n-workflow';

import { InvalidParameterError, describeValue } from '../parameters/invalidParameter';
import { flux2Flex, flux2Klein4b, flux2Klein9b, flux2Max, flux2Pro } from './flux2';
import { flux3Image } from './flux3Image';
import type { ImageModelDescriptor } from './modelDescriptor';

/** The default model: workflows saved before there was a Model parameter keep using it. */
export const DEFAULT_IMAGE_MODEL = flux3Image.id;

const models: ImageModelDescriptor[] = [flux3Image, flux2Pro, flux2Flex, flux2Max, flux2Klein4b, flux2Klein9b];

/** Adds a model (a test's, or the next BFL model's descriptor); its id must be new. */
export function registerImageModel(model: ImageModelDescriptor): void {
	if (models.some((m) => m.id === model.id)) throw new Error(`image model ${model.id} is already registered`);
	models.push(model);
}

/** Every image model, in the order the editor lists them. */
export function imageModels(): readonly ImageModelDescriptor[] {
	return models;
}

/** The model a Model parameter value names (blank: the default); InvalidParameterError for another value. */
export function imageModel(value: unknown): ImageModelDescriptor {
	const id = value === undefined || value === null || value === '' ? DEFAULT_IMAGE_MODEL : value;
	const found = models.find((m) => m.id === id);
	if (!found) throw new InvalidParameterError('model', `must be one of ${models.map((m) => m.id).join(', ')} (got ${describeValue(value)})`);
	return found;
}

/** The Model option of the image nodes. */
function modelProperty(): INodeProperties {
	return {
		displayName: 'Model',
		name: 'model',
		type: 'options',
		default: DEFAULT_IMAGE_MODEL,
		options: models.map((m) => ({ name: m.name, value: m.id, description: `${m.id}: up to ${m.maxReferenceImages} reference images${m.takesSeed ? '; takes the Seed' : ''}` })),
		description: 'Which FLUX model makes the image; each shows its own parameters',
	};
}

/** The Model option, then every model's own parameters, each shown only for the models that have it. */
export function imageModelProperties(): INodeProperties[] {
	const byName = new Map<string, { property: INodeProperties; models: string[] }>();
	for (const model of models) {
		for (const property of model.properties) {
			const entry = byName.get(property.name) ?? { property, models: [] };
			entry.models.push(model.id);
			byName.set(property.name, entry);
		}
	}
	const own = [...byName.values()].map(({ property, models: ids }) => ({ ...property, displayOptions: { show: { model: ids } } }));
	return [modelProperty(), ...own];
}

/** Editor labels of every model's own parameters, for error messages (parameterLabels.ts). */
export function imageModelLabels(): Record<string, string> {
	return Object.fromEntries([['model', 'Model'], ...models.flatMap((m) => m.properties.map((p) => [p.name, p.displayName]))]);
}
