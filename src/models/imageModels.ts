/**
 * The registry of models: the image models the FLUX image node and its twin offer (in the editor's order; a model
 * registered before the node descriptions are built appears in both with no other edit), and FLUX 3 Video.
 */
import { describeValue, InvalidParameterError } from '../parameters/invalidParameter';
import { flux2Flex, flux2Klein4b, flux2Klein9b, flux2Max, flux2Pro } from './flux2';
import { flux3Image } from './flux3Image';
import { flux3Video } from './flux3Video';
import type { ImageModelDescriptor } from './imageModel';

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

/** BFL's list price of a job of model `id` for its body (media as 1 each), where BFL publishes one. */
export function modelListPrice(id: string, body: Readonly<Record<string, unknown>>): number | undefined {
	return [...models, flux3Video].find((m) => m.id === id)?.listPrice?.(body);
}
