import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { executeFluxImage } from '../../src/fluxN8n/executeFluxImage';
import { fluxImageMethods } from '../../src/fluxN8n/fluxImageSource';
import { fluxImageDescription } from './FluxImage.description';

export class FluxImage implements INodeType {
	description = fluxImageDescription;

	methods = fluxImageMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeFluxImage(this);
	}
}
