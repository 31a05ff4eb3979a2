/**
 * Parameter names as the editor shows them, for error messages: an internal path (`prompt`,
 * `referenceImages[3]`, `options.timeoutMinutes`, `keyframes[2].seconds`) becomes its display name
 * (`Prompt`, `Reference Images → Image 4`, `Options → Timeout (Minutes)`, …). Rows are counted from 1,
 * as they stand in the editor. test/nodes/parameterLabels.test.ts checks every name against the node descriptions.
 */

/** Display names by internal path; `name[]` is what one row of a list parameter is called. */
export type ParameterLabels = Readonly<Record<string, string>>;

const SHARED: ParameterLabels = {
	prompt: 'Prompt',
	resolution: 'Resolution',
	aspectRatio: 'Aspect Ratio',
	skipError: 'Skip Error',
	seed: 'Seed (Cache Key)',
	options: 'Options',
	'options.cache': 'Cache',
	'options.timeoutMinutes': 'Timeout (Minutes)',
	'options.maxNewJobsPerExecution': 'Max New Jobs per Execution',
};

/** The FLUX 3 Image node (and its twin). */
export const FLUX_IMAGE_PARAMETER_LABELS: ParameterLabels = {
	...SHARED,
	model: 'Model',
	width: 'Width',
	height: 'Height',
	outputFormat: 'Output Format',
	steps: 'Steps',
	guidance: 'Guidance',
	grounding: 'Grounding',
	safetyTolerance: 'Safety Tolerance',
	referenceImages: 'Reference Images',
	'referenceImages[]': 'Image',
	'options.maxDownloadMb': 'Max Image Size (MB)',
};

/** The FLUX 3 Video node (and its twin). */
export const FLUX_VIDEO_PARAMETER_LABELS: ParameterLabels = {
	...SHARED,
	mode: 'Mode',
	duration: 'Duration',
	generateAudio: 'Generate Audio',
	keyframes: 'Keyframes',
	'keyframes[]': 'Keyframe',
	'keyframes[].source': 'Binary Property or URL',
	'keyframes[].seconds': 'Timestamp (Seconds)',
	startVideo: 'Start Video',
	'options.maxDownloadMb': 'Max Video Size (MB)',
};

/** The FLUX API credential's fields. */
export const FLUX_CREDENTIAL_LABELS: ParameterLabels = {
	apiStyle: 'API Style',
	baseUrl: 'Base URL',
	apiKey: 'API Key',
	dailyCreditLimit: 'Daily Credit Limit',
	dailyJobLimit: 'Daily Job Limit',
};

/**
 * The display name of an internal parameter path, each step joined by " → " (`Options → Cache`,
 * `Keyframes → Keyframe 3 → Timestamp (Seconds)`); a step the table does not know stays as it is.
 */
export function parameterLabel(field: string, labels: ParameterLabels): string {
	const steps = field.match(/[^.[\]]+|\[\d+\]/g) ?? [field];
	const shown: string[] = [];
	let pattern = '';
	for (const step of steps) {
		const row = /^\[(\d+)\]$/.exec(step);
		if (row) {
			pattern += '[]';
			shown.push(`${labels[pattern] ?? 'Row'} ${Number(row[1]) + 1}`);
		} else {
			pattern = pattern ? `${pattern}.${step}` : step;
			shown.push(labels[pattern] ?? step);
		}
	}
	return shown.join(' → ');
}
