'use strict'

const { parseArgs } = require('node:util')

const USAGE = `usage: node examples/climate-split/server.js [options]

  --port <p>            the front-end's port (default 3000; 0 picks a free one)
  --host <h>            address to listen on (default 127.0.0.1)
  --backends <k>        back-end processes the front-end splits reads across (default 0: whole reads only)
  --processes <n>       front-end processes (node:cluster, each reading whole: the study's Node Cluster; default 1)
  --no-trace            run without nodebench; also NODEBENCH=off
  --exporter <e>        spans: otlp (to OTEL_EXPORTER_OTLP_ENDPOINT) or none (breakdown only);
                        default otlp when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none
  --sample-ratio <r>    fraction of requests exported as spans, 0..1 (default 1)
  -h, --help            this text

The database: MONGODB_URI when set, else the embedded FerretDB (built once with Go). Seed it with seed.js.`

class UsageError extends Error {}

function wholeNumber (name, text, { min, max }) {
  const value = Number(text)
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}; received ${text}`)
  return value
}

/** The options of server.js and backend.js, validated; throws a UsageError naming the bad one. */
function parseProcessOptions (argv, env = process.env) {
  let values
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '3000' },
        host: { type: 'string', default: '127.0.0.1' },
        backends: { type: 'string', default: '0' },
        processes: { type: 'string', default: '1' },
        'no-trace': { type: 'boolean', default: false },
        exporter: { type: 'string' },
        'sample-ratio': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false }
      },
      strict: true
    }))
  } catch (err) {
    throw new UsageError(err.message)
  }
  const exporter = values.exporter ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'otlp' : 'none')
  if (exporter !== 'otlp' && exporter !== 'none') throw new UsageError(`--exporter must be otlp or none; received ${exporter}`)
  const sampleRatio = values['sample-ratio'] === undefined ? 1 : Number(values['sample-ratio'])
  if (!(sampleRatio >= 0 && sampleRatio <= 1)) throw new UsageError(`--sample-ratio must be a number from 0 to 1; received ${values['sample-ratio']}`)
  return {
    port: wholeNumber('port', values.port, { min: 0, max: 65535 }),
    host: values.host,
    backends: wholeNumber('backends', values.backends, { min: 0, max: 64 }),
    processes: wholeNumber('processes', values.processes, { min: 1, max: 64 }),
    trace: !values['no-trace'] && env.NODEBENCH !== 'off',
    exporter,
    sampleRatio,
    help: values.help
  }
}

module.exports = { parseProcessOptions, UsageError, USAGE }
