import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { executeFluxImage } from '../../src/nodes/executeFluxImage';
import { fluxImageSource } from '../../src/nodes/fluxImageSource';
import { fluxImageDescription } from './FluxImage.description';

export class FluxImage implements INodeType {
	description = fluxImageDescription;

	methods = fluxImageSource.methods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeFluxImage(this);
	}
}
