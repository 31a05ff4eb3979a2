/**
 * FLUX HTTP client (knows nothing of n8n): what other folders use. Submit under the paid-job
 * rule, poll, download, and the credential test; errors and redaction. See docs/ARCHITECTURE.md,
 * section src/flux. Tests of the client's own pieces import those modules directly.
 */
export { generateImage, awaitImage, generateImageFile, awaitImageFile } from './generateImage';
export type { GenerateOptions, FluxImageResult, FluxImageFileResult, ImageFileOptions } from './generateImage';
export type { FluxTestHooks } from './testHooks';
export { isImageFile, IMAGE_FILE_HASH } from './downloadFile';
export type { DownloadedImageFile, ImageDownload } from './downloadFile';
export type { FluxTask } from './submit';
export type { AttemptCounts } from './job';
export { checkFluxCredentials } from './credentialCheck';
export type { CredentialTestResult } from './credentialCheck';
export type { ApiStyle, FluxCredentials } from './endpoints';
export type { FluxImageRequest, ReferenceImage } from './request';
export { FluxError, FluxParameterError, isFluxError } from './errors';
export type { FluxErrorKind } from './errors';
export { redact } from '../redact';
export { closeFluxAgent } from './httpAgent';
export { DEFAULT_POLL_POLICY, nextPollDelay } from './retryPolicy';
export type { PollPolicy } from './retryPolicy';

export { IMAGE_MODEL, RESOLUTIONS, ASPECT_RATIOS } from './options';
export type { Resolution, AspectRatio } from './options';
export { requestBody, requestBodyJson } from './request';
export { detectReferenceImageType } from './imageType';

export { generateVideo, awaitVideo, DEFAULT_MAX_VIDEO_BYTES } from './generateVideo';
export type { FluxVideoResult, VideoOptions } from './generateVideo';
export type { FluxVideoRequest, VideoKeyframe, VideoMedia } from './videoRequest';
export { videoRequestBody, videoRequestPayload } from './videoRequest';
export { isMp4 } from './videoType';
export * from './videoOptions';
export type { SubmitBudget } from './budget';
