/**
 * A FLUX model as data: its endpoint, the pool its jobs run in, its account limit, whether it takes a seed, and
 * for image models the parameters it shows and how they become its request body. Adding a model is one
 * descriptor registered in imageModels.ts; the nodes, the job key, the submit and the spend follow from it.
 */
import type { INodeProperties } from 'n8n-workflow';

import type { FluxImageRequest, ImageModelWire } from '../flux/request';

/** What every model says about itself. */
export interface ModelDescriptor {
	/** The endpoint name (`…/v1/<id>`), also the value of the image nodes' Model parameter and the key's model. */
	id: string;
	/** As the editor shows it. */
	name: string;
	/** `image` or `video`: picks the pool and how the result is kept. */
	output: 'image' | 'video';
	/** Active tasks BFL allows an account on this endpoint: where the adaptive account limit starts. */
	accountLimit: number;
	/** Whether the API takes a seed (then the Seed is sent; it keys the store either way). */
	takesSeed: boolean;
	/** The result's media type when the bytes do not say otherwise (images follow their magic bytes). */
	mediaType: string;
}

/** One model's own parameters as read for an item (raw, as n8n hands them over), by parameter name. */
export type ModelFieldValues = Record<string, unknown>;

/** An image model (the FLUX image node and its twin). */
export interface ImageModelDescriptor extends ModelDescriptor, ImageModelWire {
	output: 'image';
	/** Its reference images at most (sent in the model's own field names). */
	maxReferenceImages: number;
	/** The parameters only this model shows (their displayOptions are added by imageModels.ts). */
	properties: INodeProperties[];
	/**
	 * Its own fields validated, in the API's names (`width`, `output_format`, `seed`, …); throws
	 * InvalidParameterError naming the parameter. `seed` is the item's Seed.
	 */
	fields(values: ModelFieldValues, seed: number | undefined): Record<string, unknown>;
	/** The submit body of a request (reference images in order; see FluxImageRequest.modelFields). */
	body(request: FluxImageRequest): Record<string, unknown>;
}
