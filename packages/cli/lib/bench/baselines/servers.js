'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { freeLoopbackPort, startApachePhp } = require('@nodebench/services')
const { codes, NodebenchError } = require('@nodebench/errors')
const { startScript } = require('../../kernel/app-process')
const { TARGET_KINDS } = require('../../kernel/targets')

// A bench cell's server when it is not the app (kernel/targets.js): a bare node:http server or Express app
// (nodebench's own, bare-server.js, or a script of the workload's) or Apache httpd with PHP (@nodebench/services).
// The app and the app without nodebench start as every app does (kernel/topology.js). A server that does not start
// or answer is NB_ERR_TARGET_START (Apache's own errors keep their codes), and fails its cells only.

const BARE_SERVER = path.join(__dirname, 'bare-server.js')
// What a bare server answers when the run has no answer of the app's to serve.
const HELLO = Object.freeze({ status: 200, contentType: 'text/plain; charset=utf-8', body: Buffer.from('Hello World\n'), from: 'fixed' })

function targetError (target, err) {
  if (err instanceof NodebenchError && err.code !== codes.NB_ERR_APP_START) return err
  return new NodebenchError(codes.NB_ERR_TARGET_START, `target '${target.name}' (${target.label}): ${err.message.replace(/^the app /, '')}`)
}

/** The Express a bare Express app loads: the app's own (its folder's, or the current one's), else nodebench's. */
function expressFor (appDir) {
  for (const [from, where] of [['the app\'s', appDir], ['the current folder\'s', process.cwd()]]) {
    if (where === null) continue
    try {
      const entry = require.resolve('express', { paths: [where] })
      return { entry, from, version: packageVersion(entry) }
    } catch {}
  }
  const entry = require.resolve('express')
  return { entry, from: 'nodebench\'s own', version: packageVersion(entry) }
}

/** The version in the package.json above a module's entry. */
function packageVersion (entry) {
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json')
    if (fs.existsSync(file)) {
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8'))
      if (manifest.name) return manifest.version ?? null
    }
  }
  return null
}

/**
 * The answer a bare server gives: the app's to the same request (`appReply`, captureReply's) or "Hello World"
 * with the status the workload expects.
 */
function replyFor (appReply, expectedStatus) {
  return appReply ?? { ...HELLO, status: expectedStatus }
}

/** What `base` answers the first of `sent`'s requests: `{ status, contentType, body, from: 'app' }`. */
async function captureReply (base, sent) {
  const request = sent.requests[0]
  const response = await fetch(base + request.path, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' })
  return { status: response.status, contentType: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()), from: 'app' }
}

/**
 * Starts `target` (not the app) for a cell: resolves to `{ base, processes(), about, stop() }`, `processes()`
 * its processes as the sampler's roots, `about` what results.json says of the server that ran (versions, the
 * reply it served). `appDir`: the app's folder (its Express), `reply`: replyFor's, `stopGraceMs`: --stop-grace's.
 */
async function startTarget (target, { processes, env, reply, appDir, stopGraceMs, log = () => {} }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `nodebench-${target.kind}-`))
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true })
  const role = TARGET_KINDS[target.kind].role
  const served = target.builtIn
    ? { from: reply.from, status: reply.status, contentType: reply.contentType, bytes: reply.body.length }
    : null
  try {
    if (target.kind === 'apache-php') {
      const apache = await startApachePhp({
        dir,
        port: await freeLoopbackPort(),
        ...(target.builtIn ? { reply } : { root: target.root }),
        prefork: target.prefork,
        env,
        onProgress: log
      })
      return {
        base: apache.url,
        processes: () => [{ pid: apache.pid, role, childRole: 'apache2 child' }],
        about: { apache: apache.versions.apache, php: apache.versions.php, prefork: apache.settings, reply: served },
        async stop () {
          try {
            await apache.stop()
          } finally {
            removeDir()
          }
        }
      }
    }
    const about = { node: process.version, reply: served }
    let script = target.script
    const args = []
    if (target.builtIn) {
      script = BARE_SERVER
      fs.writeFileSync(path.join(dir, 'reply.json'), JSON.stringify({ status: reply.status, contentType: reply.contentType }))
      fs.writeFileSync(path.join(dir, 'reply.body'), reply.body)
      args.push('--kind', target.kind, '--reply', dir)
      if (target.kind === 'express') {
        const express = expressFor(appDir)
        args.push('--express', express.entry)
        about.express = { version: express.version, from: express.from }
      }
    }
    const server = await startScript(script, { processes, env: { ...env, NODEBENCH: 'off' }, args, graceMs: stopGraceMs, name: `target '${target.name}'` })
    return {
      base: server.base,
      processes: () => [{ pid: server.pid, role, childRole: `${role} worker` }],
      about,
      async stop () {
        try {
          await server.stop()
        } finally {
          removeDir()
        }
      }
    }
  } catch (err) {
    removeDir()
    throw targetError(target, err)
  }
}

module.exports = { startTarget, captureReply, replyFor, expressFor }
