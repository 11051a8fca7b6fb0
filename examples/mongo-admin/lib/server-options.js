'use strict'

const { parseArgs } = require('node:util')

const USAGE = `usage: node examples/mongo-admin/server.js [options]

  --port <p>            port to listen on (default 3000; 0 picks a free one)
  --host <h>            address to listen on (default 127.0.0.1)
  --processes <n>       worker processes (node:cluster; default 1, at most 64)
  --no-trace            run without nodebench (the baseline); also NODEBENCH=off
  --exporter <e>        spans: otlp (to OTEL_EXPORTER_OTLP_ENDPOINT) or none (breakdown only);
                        default otlp when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none
  --sample-ratio <r>    fraction of requests exported as spans, 0..1 (default 1)
  --server-timing       a Server-Timing header on every response: each layer's time, for the browser
                        (nodebench browser splits a page's time into server, network and client with it)
  --log                 log every request (off by default: it distorts load runs)
  -h, --help            this text

The database: MONGODB_URI when set, else the embedded FerretDB (built once with Go).`

/** A usage error: the message says what was wrong; server.js prints it with the usage and exits 2. */
class UsageError extends Error {}

function parseServerOptions (argv, env = process.env) {
  let values
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '3000' },
        host: { type: 'string', default: '127.0.0.1' },
        processes: { type: 'string', default: '1' },
        'no-trace': { type: 'boolean', default: false },
        exporter: { type: 'string' },
        'sample-ratio': { type: 'string' },
        'server-timing': { type: 'boolean', default: false },
        log: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false }
      },
      strict: true,
      allowPositionals: false
    }))
  } catch (err) {
    throw new UsageError(err.message)
  }
  if (values.help) return { help: true }
  const port = wholeNumber(values.port, '--port', 0, 65535)
  const processes = wholeNumber(values.processes, '--processes', 1, 64)
  const exporter = values.exporter ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'otlp' : 'none')
  if (exporter !== 'otlp' && exporter !== 'none') {
    throw new UsageError(`--exporter must be otlp or none; received "${exporter}"`)
  }
  let sampleRatio
  if (values['sample-ratio'] !== undefined) {
    sampleRatio = Number(values['sample-ratio'])
    if (values['sample-ratio'].trim() === '' || !(sampleRatio >= 0 && sampleRatio <= 1)) {
      throw new UsageError(`--sample-ratio must be a number from 0 to 1; received "${values['sample-ratio']}"`)
    }
  }
  const nodebenchEnv = (env.NODEBENCH || '').toLowerCase()
  if (nodebenchEnv !== '' && nodebenchEnv !== 'on' && nodebenchEnv !== 'off') {
    throw new UsageError(`NODEBENCH must be on or off; received "${env.NODEBENCH}"`)
  }
  return {
    help: false,
    port,
    host: values.host,
    processes,
    trace: !values['no-trace'] && nodebenchEnv !== 'off',
    exporter,
    sampleRatio,
    serverTiming: values['server-timing'],
    requestLog: values.log
  }
}

function wholeNumber (text, name, min, max) {
  const value = Number(text)
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}; received "${text}"`)
  }
  return value
}

module.exports = { parseServerOptions, UsageError, USAGE }
