/** Models as data (modelDescriptor.ts): FLUX 3 Image, the FLUX.2 family and FLUX 3 Video, and the image-model registry. */
export type { ImageModelDescriptor, ModelDescriptor, ModelFieldValues } from './modelDescriptor';
export { flux3Image } from './flux3Image';
export { flux3Video } from './flux3Video';
export { flux2Flex, flux2Klein4b, flux2Klein9b, flux2Max, flux2Pro } from './flux2';
export { DEFAULT_IMAGE_MODEL, imageModel, imageModelLabels, imageModelProperties, imageModels, registerImageModel } from './imageModels';
