/** Models as data (modelDescriptor.ts, parameter.ts): FLUX 3 Image, the FLUX.2 family, FLUX 3 Video, and the registry. */
export { takesSeed, type ModelDescriptor } from './modelDescriptor';
export { describeImageModel, imagePrompt, type ImageModelDescriptor } from './imageModel';
export { editorProperties, isPrimitive, readValues, type Parameter, type Values } from './parameter';
export { flux3Image } from './flux3Image';
export { flux3Video, type FluxVideoRequest } from './flux3Video';
export { flux2Flex, flux2Klein4b, flux2Klein9b, flux2Max, flux2Pro } from './flux2';
export { DEFAULT_IMAGE_MODEL, imageModel, imageModels, modelListPrice, registerImageModel } from './imageModels';
