/** Models as data (modelDescriptor.ts, parameter.ts): FLUX 3 Image, the FLUX.2 family, FLUX 3 Video, and the registry. */
export type { ModelDescriptor } from './modelDescriptor';
export { takesSeed } from './modelDescriptor';
export type { ImageModelDescriptor } from './imageModel';
export { describeImageModel, imagePrompt, referenceImages } from './imageModel';
export { describeModel } from './modelDescriptor';
export type { Parameter, Values } from './parameter';
export { bodyOf, editorProperties, readValues } from './parameter';
export { flux3Image } from './flux3Image';
export { flux3Video } from './flux3Video';
export type { FluxVideoRequest } from './flux3Video';
export { flux2Flex, flux2Klein4b, flux2Klein9b, flux2Max, flux2Pro } from './flux2';
export { DEFAULT_IMAGE_MODEL, imageModel, imageModels, modelById, modelListPrice, registerImageModel } from './imageModels';
