/** One paid job, one owner: claims per job key through the store folder and Redis (see claims.ts). */
export { CLAIMS_SUBFOLDER, Claims, type ClaimHandle, type ClaimsOptions, DEFAULT_CLAIM_TIMING, type ClaimTiming } from './claims';
export { type ProcessOwner as ClaimOwner, thisOwner } from '../../coordination/ownerLiveness';
export { claimFileName } from './fileClaims';
