/**
 * FLUX HTTP client (knows nothing of n8n, and no particular model: a request carries its model's endpoint and
 * body, src/models): what other folders use. Submit under the paid-job rule, poll, download, and the credential
 * test; errors and redaction. See docs/ARCHITECTURE.md. Tests of the client's own pieces import those modules directly.
 */
export { generateImage, awaitImage, generateImageFile, awaitImageFile } from './generateImage';
export type { GenerateOptions, FluxImageFileResult } from './generateImage';
export { isImageFile } from './downloadFile';
export type { DownloadedImageFile } from './downloadFile';
export type { FluxTask } from './submit';
export { checkFluxCredentials } from './credentialCheck';
export type { FluxCredentials } from './endpoints';
export type { FluxImageRequest, Media, ModelRequest, ModelWire, ReferenceImage } from './request';
export { errorClassOf, FluxError, fluxErrorKindOf, isFluxError } from './errors';
export type { FluxErrorClass, FluxErrorKind } from './errors';
export { redact } from '../redact';
export { closeFluxAgent } from './httpAgent';
export { DEFAULT_POLL_POLICY, nextPollDelay } from './retryPolicy';
export type { PollPolicy } from './retryPolicy';

export { modelRequestBody, requestBody, requestBodyJson, requestEndpoint } from './request';

export { generateVideo, awaitVideo } from './generateVideo';
export type { FluxVideoResult } from './generateVideo';
export type { SubmitBudget } from './budget';
export type { SubmitStep } from './submitSteps';
