'use strict'

const { reportInternalError, notice } = require('./internal-errors')

// Beside the app's own instrumentation-express, each layer appears once in a request's trace: either nodebench's
// layer spans stand, or instrumentation-express's (the `layerSpans` option).
//
// nodebench's by default. They are the finer ones (a span per handler of a route, per param callback and per
// error handler, where instrumentation-express has one `request handler` span for a whole route and none for
// error handlers), named as the breakdown's rows are (through wrappers: foreign-wrappers.js), with the
// breakdown's own times, the code.* attributes of the function, and the `express.type`/`express.name` attributes
// instrumentation-express sets, so queries on those keep working. A user who adds nodebench asks for that view.
//
// instrumentation-express is then told, through its own configuration, to ignore its three layer types
// (`ignoreLayersType`: router, middleware, request_handler), as its README suggests for fewer spans: it still
// records the matched route for instrumentation-http's SERVER span (`http.route` and its name), and creates no
// span. Its configuration is read on every layer call, so the change holds for layers made before it.
// The other way ('instrumentation-express') leaves the app's configuration as it is and nodebench writes no
// layer spans under instrumentation-http's SERVER span. The breakdown is timed the same either way.

const IGNORED_LAYER_TYPES = Object.freeze(['router', 'middleware', 'request_handler'])
// nodebench's own middleware is no layer of the app's: instrumentation-express is told to leave it either way
// (by the name it gives the layer; it spans it on the request that finds the app, which runs before this).
const OWN_LAYER = 'middleware - nodebenchTraceMiddleware'

/**
 * Applies the `layerSpans` choice to the app's instrumentation-express (foreign-wrappers.js found it) and says
 * once per process which spans stand and how to change it. Returns whether nodebench writes layer spans.
 */
function settleLayerSpans (choice, instrumentation) {
  let ownSpans = choice === 'nodebench'
  try {
    const config = instrumentation.getConfig()
    const changed = { ...config }
    const ignoredLayers = Array.isArray(config.ignoreLayers) ? config.ignoreLayers : []
    if (!ignoredLayers.includes(OWN_LAYER)) changed.ignoreLayers = [...ignoredLayers, OWN_LAYER]
    if (ownSpans) {
      const ignoredTypes = Array.isArray(config.ignoreLayersType) ? config.ignoreLayersType : []
      const missing = IGNORED_LAYER_TYPES.filter((type) => !ignoredTypes.includes(type))
      if (missing.length > 0) changed.ignoreLayersType = [...ignoredTypes, ...missing]
    }
    instrumentation.setConfig(changed)
  } catch (err) {
    // Its configuration could not be changed: its spans stand, nodebench's would repeat them.
    reportInternalError('configure instrumentation-express', err)
    ownSpans = false
  }
  notice('layer spans', ownSpans
    ? "instrumentation-express is active; nodebench's layer spans stand and instrumentation-express's " +
      "layer spans are turned off (its ignoreLayersType), so each layer appears once. To keep instrumentation-express's " +
      "instead: nodebenchTrace({ layerSpans: 'instrumentation-express' })"
    : 'instrumentation-express is active; its layer spans stand and nodebench writes none beside them ' +
      "(the breakdown is the same). To have nodebench's instead: nodebenchTrace({ layerSpans: 'nodebench' })")
  return ownSpans
}

module.exports = { settleLayerSpans, IGNORED_LAYER_TYPES }
