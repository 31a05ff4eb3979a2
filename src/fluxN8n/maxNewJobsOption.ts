/** Options → Max New Jobs per Execution, one definition for every FLUX node (image and video; the twins copy it). */
import type { INodeProperties } from 'n8n-workflow';

import { MAX_NEW_JOBS_PER_EXECUTION } from '../parameters/fieldSchemas';

export const MAX_NEW_JOBS_OPTION: INodeProperties = {
	displayName: 'Max New Jobs per Execution',
	name: 'maxNewJobsPerExecution',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0, maxValue: MAX_NEW_JOBS_PER_EXECUTION, numberPrecision: 0 },
	description:
		'At most this many new paid jobs from this node in one execution, across all its runs (e.g. every batch of a Loop Over Items); jobs beyond it are not sent and fail with errorKind budget_exceeded. Results from the store do not count. 0 = no limit.',
};
