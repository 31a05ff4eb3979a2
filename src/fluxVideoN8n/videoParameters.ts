/** FLUX 3 Video's parameters are its descriptor's (src/models/flux3Video.ts), read as every FLUX node's (fluxParameters.ts). */
export type { KeyframeEntry, MediaSource } from '../parameters/mediaSources';
export { parseFluxVideoParameters, type FluxVideoParameters } from '../fluxN8n/fluxParameters';
