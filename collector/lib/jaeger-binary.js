'use strict'

const os = require('node:os')
const { ensureGoBinary } = require('@nodebench/services/components')
const { JAEGER_ALTERNATIVES } = require('./errors')

// How nodebench builds Jaeger v2 from the Go module proxy, once. `go install` refuses
// github.com/jaegertracing/jaeger (its go.mod has replace directives), so the module is downloaded and
// `./cmd/jaeger` is built inside its directory. Such a build has no UI assets: the query API is complete,
// the UI is a placeholder (the jaegertracing/jaeger image has the UI).
// This file is the recipe: the binary's cache key hashes it, so changing it rebuilds Jaeger. Keep
// anything else out of it.

const JAEGER_MODULE = 'github.com/jaegertracing/jaeger'
const JAEGER_VERSION = 'v1.76.0' // the Go module's version; the binary is Jaeger 2.x

/** The path of the jaeger binary, built the first time (several minutes; seconds with a warm Go cache). */
function jaegerBinary ({ onProgress, env = process.env } = {}) {
  return ensureGoBinary({
    name: 'jaeger',
    displayName: 'Jaeger',
    version: JAEGER_VERSION,
    buildTime: 'several minutes',
    sourceFiles: [__filename],
    alternatives: JAEGER_ALTERNATIVES,
    onProgress,
    env,
    async build ({ output, go }) {
      const download = await go(['mod', 'download', '-json', `${JAEGER_MODULE}@${JAEGER_VERSION}`], { cwd: os.tmpdir() })
      const dir = /"Dir":\s*"([^"]+)"/.exec(download)
      if (dir === null) throw Object.assign(new Error('go mod download did not say where the module is'), { output: download })
      await go(['build', '-o', output, './cmd/jaeger'], { cwd: JSON.parse(`"${dir[1]}"`) })
    }
  })
}

module.exports = { jaegerBinary, JAEGER_VERSION }
