// A module-resolution hook that lets Node load tfjs-core's gradient registrations
// (@tensorflow/tfjs-core/dist/register_all_gradients.js). tfjs-core's Node build registers no
// gradients; that file is the documented way to add them, but it is ES-module source written for
// bundlers, whose relative imports leave out the '.js' that Node requires. Here they get it.
// Installed by loadTensorFlow() in tfjs.mjs with module.register().
const TFJS_CORE_DIST = '/node_modules/@tensorflow/tfjs-core/dist/';

export async function resolve(specifier, context, nextResolve) {
  const fromCore = context.parentURL?.includes(TFJS_CORE_DIST) ?? false;
  if (fromCore && specifier.startsWith('.') && !specifier.endsWith('.js')) {
    return nextResolve(`${specifier}.js`, context);
  }
  return nextResolve(specifier, context);
}
