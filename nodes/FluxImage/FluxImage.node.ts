import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { executeFluxNode, fluxMethods } from '../../src/fluxN8n/fluxNode';
import { fluxImageNode } from '../../src/fluxN8n/imageJobs';
import { fluxImageDescription } from './FluxImage.description';

export class FluxImage implements INodeType {
	description = fluxImageDescription;

	methods = fluxMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeFluxNode(this, fluxImageNode);
	}
}
