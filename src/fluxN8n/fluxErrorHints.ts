import type { FluxErrorKind } from '../flux';
import type { ErrorHints } from '../n8n/nodeErrors';

/** What the user can do about a failed FLUX job, by error kind (the node error's description). */
export const FLUX_ERROR_HINTS: ErrorHints & Partial<Record<FluxErrorKind, string>> = {
	auth: 'Check the FLUX API credential (API style, base URL and key).',
	credits: 'The account is out of credits.',
	maybe_submitted:
		'The job may exist upstream; it was not retried, so that it is not paid twice. Check the provider before re-running.',
	request_moderated: 'The prompt or reference images were refused by moderation.',
	content_moderated: 'The generated image was refused by moderation.',
	timeout: 'The job did not finish within its timeout (Options → Timeout).',
	rate_limited: 'The API kept answering 429. Lower COMFLY_IMAGE_CONCURRENCY.',
	budget_exceeded:
		'A spend limit stopped this job before it was sent: nothing was paid. The daily limits are fields of the FLUX API credential (Daily Credit Limit, Daily Job Limit); the per-execution limit is this node\'s Options → Max New Jobs per Execution.',
};

/** The FLUX hints worded for clips: the video pool, keyframes and the start video. */
export const FLUX_VIDEO_ERROR_HINTS: typeof FLUX_ERROR_HINTS = {
	...FLUX_ERROR_HINTS,
	request_moderated: 'The prompt, keyframes or start video were refused by moderation.',
	content_moderated: 'The generated clip was refused by moderation.',
	rate_limited: 'The API kept answering 429 (FLUX 3 Video allows 5 active clips per account). Lower COMFLY_VIDEO_CONCURRENCY.',
};
