'use strict'

const path = require('node:path')
const { PROJECT_CACHE_DIR } = require('@nodebench/services')
const { readServiceState, writeServiceState } = require('@nodebench/services/components')
const { startJaeger, answers } = require('./jaeger')
const { jaegerBinary } = require('./jaeger-binary')

// `nodebench services start|stop|status jaeger`: the spec @nodebench/services runs Jaeger by.

const jaegerService = Object.freeze({
  description: 'Jaeger v2 (OTLP receivers, in-memory trace store, query API v3)',
  async start ({ stateDir, onProgress, env, readyTimeoutMs }) {
    const running = readServiceState('jaeger', { stateDir })
    if (running !== null && await answers(running.uri)) return { state: running, alreadyRunning: true }
    const jaeger = await startJaeger({
      detached: true,
      logFile: path.join(PROJECT_CACHE_DIR, 'jaeger', 'jaeger.log'),
      onProgress,
      env,
      readyTimeoutMs
    })
    const state = {
      name: 'jaeger',
      pid: jaeger.pid,
      command: await jaegerBinary({ env }),
      uri: jaeger.queryUrl,
      port: jaeger.ports.query,
      otlpHttpEndpoint: jaeger.otlpHttpEndpoint,
      otlpGrpcEndpoint: jaeger.otlpGrpcEndpoint,
      logFile: jaeger.logFile,
      startedAt: new Date().toISOString(),
      owner: null
    }
    writeServiceState(state, { stateDir })
    return { state, alreadyRunning: false }
  },
  answers: (state) => answers(state.uri),
  // The last two lines `services start jaeger` prints: where an app sends spans, where reports read them.
  env: (state) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: state.otlpHttpEndpoint, JAEGER_QUERY_URL: state.uri })
})

module.exports = { jaegerService }
