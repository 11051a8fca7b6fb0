'use strict'

// The collector's errors are NodebenchErrors of @nodebench/errors, whose table holds every code. Each message
// says what was wrong and what to do instead.

const { codesOf, NodebenchError } = require('@nodebench/errors')

/** The codes @nodebench/collector throws (its `errorCodes`). */
const codes = codesOf([
  'NB_ERR_JAEGER_START', 'NB_ERR_JAEGER_URL', 'NB_ERR_JAEGER_UNREACHABLE', 'NB_ERR_JAEGER_RESPONSE', 'NB_ERR_UNKNOWN_SERVICE',
  'NB_ERR_SINCE', 'NB_ERR_NO_TRACES', 'NB_ERR_UNKNOWN_TRACE', 'NB_ERR_APP_URL', 'NB_ERR_APP_UNREACHABLE', 'NB_ERR_APP_RESPONSE',
  'NB_ERR_PROMETHEUS_START', 'NB_ERR_PROMETHEUS_TARGET', 'NB_ERR_PROMETHEUS_SCRAPE', 'NB_ERR_PROMETHEUS_URL', 'NB_ERR_PROMETHEUS_UNREACHABLE',
  'NB_ERR_PROMETHEUS_RESPONSE', 'NB_ERR_NO_METRICS', 'NB_ERR_USAGE'
])

/** The image of examples/mongo-admin/docker-compose.yml, which a test keeps equal. */
const JAEGER_IMAGE = 'jaegertracing/jaeger:2.15.0'

/** What to do instead of building Jaeger, for NB_ERR_GO_MISSING. */
const JAEGER_ALTERNATIVES = Object.freeze([
  `run Jaeger with Docker: \`docker run -d --name nodebench-jaeger -p 127.0.0.1:16686:16686 -p 127.0.0.1:4318:4318 ${JAEGER_IMAGE}\` ` +
    '(its image also serves the UI)',
  'or point nodebench at a running Jaeger: OTEL_EXPORTER_OTLP_ENDPOINT for the app, --jaeger <query-url> for reports'
])

module.exports = { codes, NodebenchError, JAEGER_IMAGE, JAEGER_ALTERNATIVES }
