/**
 * FLUX HTTP client (knows nothing of n8n): parameters → request body,
 * reference images, submit under the paid-job rule, polling, download,
 * redaction. See docs/CONTRACTS.md, section src/flux.
 */
export { IMAGE_MODEL } from './options';
export { redact, REDACTED, URL_PLACEHOLDER, MAX_REDACTED_LENGTH } from './redact';
export { FluxError, FluxParameterError, FLUX_ERROR_KINDS, isFluxError } from './errors';
export type { FluxErrorKind, FluxErrorOptions } from './errors';
export { detectImageType, detectReferenceImageType } from './imageType';
export type { ResultMimeType, ResultExtension, DetectedImageType } from './imageType';
export { RESOLUTIONS, ASPECT_RATIOS } from './options';
export type { Resolution, AspectRatio } from './options';
export { buildRequestBody } from './request';
export type { ReferenceImage, FluxImageRequest } from './request';
export {
	normalizeBaseUrl,
	resolveEndpoints,
	defaultPollUrl,
	registrableDomain,
	isCredentialHostAllowed,
	checkPollingUrl,
} from './endpoints';
export type { ApiStyle, FluxCredentials, FluxEndpoints } from './endpoints';
export { getFluxAgent, closeFluxAgent, AGENT_DEFAULTS } from './httpAgent';
export {
	DEFAULT_POLL_POLICY,
	DEFAULT_SUBMIT_RETRY_POLICY,
	DEFAULT_DOWNLOAD_RETRY_POLICY,
	backoffDelay,
	nextPollDelay,
	parseRetryAfter,
	resolvePolicy,
	sleep,
	classifyNetworkError,
	errorCode,
} from './retryPolicy';
export type { BackoffPolicy, PollPolicy, RetryPolicy, NetworkErrorClass } from './retryPolicy';
export type { AttemptCounts } from './runtime';
export { DEFAULT_MAX_DOWNLOAD_BYTES, MAX_REDIRECTS } from './download';
export { generateImage, DEFAULT_JOB_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './generateImage';
export type { GenerateOptions, FluxImageResult } from './generateImage';
export { checkFluxCredentials, DEFAULT_CREDENTIAL_TEST_TIMEOUT_MS } from './credentialCheck';
export type { CredentialTestResult, CredentialCheckOptions } from './credentialCheck';
